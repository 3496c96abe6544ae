// The rasteriser the classic-control envs draw their render() frames with:
// the few primitives gymnasium's pictures use (pygame.gfxdraw's polygons,
// circles and lines, pygame.draw's line and aalines), each following the
// algorithm pygame-ce runs (SDL_gfx's, for gfxdraw) down to its rounding, so
// that the frames equal gymnasium's rgb_array frames pixel for pixel
// (tests/test_classic_render.py).
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

namespace envpool_core::classic {

struct Rgb {
  std::uint8_t r, g, b;
};

struct Point {
  double x, y;
};

// pygame.math.Vector2(p).rotate_rad(angle): counter-clockwise in surface coordinates.
inline Point Rotated(Point p, double angle) {
  double c = std::cos(angle);
  double s = std::sin(angle);
  return {p.x * c - p.y * s, p.x * s + p.y * c};
}

class ClassicCanvas {
 public:
  // Draws on `rgb` (height x width x 3) in gymnasium's surface coordinates:
  // gymnasium draws with y growing upwards and flips the surface at the end,
  // so surface row y is the frame's row height - 1 - y.
  ClassicCanvas(std::uint8_t* rgb, int height, int width)
      : rgb_(rgb), height_(height), width_(width) {}

  void Fill(Rgb color);
  // gfxdraw.filled_polygon and gfxdraw.aapolygon; vertices are truncated to
  // integers (towards zero) as gfxdraw's int() does. At most kMaxPolygonPoints
  // vertices.
  void FilledPolygon(std::span<const Point> points, Rgb color);
  void AaPolygon(std::span<const Point> points, Rgb color);
  // gfxdraw.filled_circle and gfxdraw.aacircle.
  void FilledCircle(int cx, int cy, int radius, Rgb color);
  void AaCircle(int cx, int cy, int radius, Rgb color);
  // gfxdraw.hline and gfxdraw.vline: both ends included.
  void HLine(int x1, int x2, int y, Rgb color);
  void VLine(int x, int y1, int y2, Rgb color);
  // pygame.draw.line of width 1.
  void Line(Point from, Point to, Rgb color);
  // pygame.draw.aalines, not closed.
  void AaLines(std::span<const Point> points, Rgb color);
  // One pixel of pygame's blit of an image with per-pixel alpha (4 bytes, RGBA).
  void BlendRgba(int x, int y, const std::uint8_t* rgba);

  static constexpr int kMaxPolygonPoints = 8;

 private:
  // The pixel's 3 bytes; null outside the frame (pygame clips every primitive).
  std::uint8_t* PixelAt(int x, int y) const;
  // Sets the pixel.
  void Put(int x, int y, Rgb color);
  // Blends `color` over the pixel with weight alpha / 256, as SDL_gfx does.
  void Blend(int x, int y, Rgb color, int alpha);
  // Blends with a coverage in [0, 1], as pygame.draw's anti-aliasing does.
  void BlendCoverage(int x, int y, Rgb color, float coverage);
  // SDL_gfx's _clipLine: false when the line misses the frame.
  bool ClipLine(int& x1, int& y1, int& x2, int& y2) const;
  // SDL_gfx's _aalineColor without its end pixel (aapolygon's edges).
  void AaLineInt(int x1, int y1, int x2, int y2, Rgb color);
  // pygame-ce's draw_aaline; aalines skips the pixels of the joints another
  // segment draws, and adds one where the line turns from steep to shallow.
  void AaLine(float from_x, float from_y, float to_x, float to_y, Rgb color, bool skip_first_end,
              bool skip_second_end, bool extra_pixel);

  std::uint8_t* rgb_;
  int height_;
  int width_;
};

}  // namespace envpool_core::classic
