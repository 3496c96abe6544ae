#include "classic/classic_canvas.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace envpool_core::classic {

std::uint8_t* ClassicCanvas::PixelAt(int x, int y) const {
  if (x < 0 || x >= width_ || y < 0 || y >= height_) return nullptr;
  return rgb_ + (static_cast<std::ptrdiff_t>(height_ - 1 - y) * width_ + x) * 3;
}

void ClassicCanvas::Put(int x, int y, Rgb color) {
  std::uint8_t* p = PixelAt(x, y);
  if (p == nullptr) return;
  p[0] = color.r;
  p[1] = color.g;
  p[2] = color.b;
}

void ClassicCanvas::Blend(int x, int y, Rgb color, int alpha) {
  if (alpha >= 255) return Put(x, y, color);
  std::uint8_t* p = PixelAt(x, y);
  if (p == nullptr) return;
  // SDL_gfx's _putPixelAlpha: dst + (src - dst) * alpha / 256, rounded down.
  auto mix = [alpha](std::uint8_t dst, std::uint8_t src) {
    return static_cast<std::uint8_t>(dst + (((src - dst) * alpha) >> 8));
  };
  p[0] = mix(p[0], color.r);
  p[1] = mix(p[1], color.g);
  p[2] = mix(p[2], color.b);
}

void ClassicCanvas::BlendCoverage(int x, int y, Rgb color, float coverage) {
  std::uint8_t* p = PixelAt(x, y);
  if (p == nullptr) return;
  // pygame.draw's get_antialiased_color, in float and truncated.
  auto mix = [c = coverage](std::uint8_t dst, std::uint8_t src) {
    return static_cast<std::uint8_t>(c * static_cast<float>(src) +
                                     (1 - c) * static_cast<float>(dst));
  };
  p[0] = mix(p[0], color.r);
  p[1] = mix(p[1], color.g);
  p[2] = mix(p[2], color.b);
}

void ClassicCanvas::BlendRgba(int x, int y, const std::uint8_t* rgba) {
  std::uint8_t* p = PixelAt(x, y);
  if (p == nullptr) return;
  // pygame's ALPHA_BLEND_COMP (alphablit.c) onto an opaque surface.
  const int alpha = rgba[3];
  for (int c = 0; c < 3; ++c) {
    p[c] = static_cast<std::uint8_t>(((((rgba[c] - p[c]) * alpha) + rgba[c]) >> 8) + p[c]);
  }
}

void ClassicCanvas::Fill(Rgb color) {
  for (int y = 0; y < height_; ++y) HLine(0, width_ - 1, y, color);
}

void ClassicCanvas::HLine(int x1, int x2, int y, Rgb color) {
  if (y < 0 || y >= height_) return;
  if (x1 > x2) std::swap(x1, x2);
  for (int x = std::max(x1, 0); x <= std::min(x2, width_ - 1); ++x) Put(x, y, color);
}

void ClassicCanvas::VLine(int x, int y1, int y2, Rgb color) {
  if (y1 > y2) std::swap(y1, y2);
  for (int y = y1; y <= y2; ++y) Put(x, y, color);
}

void ClassicCanvas::FilledPolygon(std::span<const Point> points, Rgb color) {
  const int n = static_cast<int>(points.size());
  if (n < 3) return;
  if (n > kMaxPolygonPoints) throw std::invalid_argument("ClassicCanvas: too many polygon points");
  std::array<int, kMaxPolygonPoints> vx{};
  std::array<int, kMaxPolygonPoints> vy{};
  for (int i = 0; i < n; ++i) {
    vx[i] = static_cast<int>(points[i].x);
    vy[i] = static_cast<int>(points[i].y);
  }
  // SDL_gfx's filledPolygonColor: per scanline, the 16.16 fixed-point
  // crossings of the edges, filled between pairs. Its `else if` (a vertex
  // lower than the first is never tested as the maximum) is kept, as gfxdraw
  // draws with it.
  int miny = vy[0];
  int maxy = vy[0];
  for (int i = 1; i < n; ++i) {
    if (vy[i] < miny) {
      miny = vy[i];
    } else if (vy[i] > maxy) {
      maxy = vy[i];
    }
  }
  std::array<int, kMaxPolygonPoints> ints{};
  for (int y = miny; y <= maxy; ++y) {
    int count = 0;
    for (int i = 0; i < n; ++i) {
      int ind1 = i == 0 ? n - 1 : i - 1;
      int ind2 = i;
      int y1 = vy[ind1];
      int y2 = vy[ind2];
      int x1 = vx[ind1];
      int x2 = vx[ind2];
      if (y1 > y2) {
        std::swap(y1, y2);
        std::swap(x1, x2);
      } else if (y1 == y2) {
        continue;
      }
      if ((y >= y1 && y < y2) || (y == maxy && y > y1 && y <= y2)) {
        ints[count++] = ((65536 * (y - y1)) / (y2 - y1)) * (x2 - x1) + 65536 * x1;
      }
    }
    // An insertion sort: at most kMaxPolygonPoints crossings.
    for (int i = 1; i < count; ++i) {
      for (int j = i; j > 0 && ints[j - 1] > ints[j]; --j) std::swap(ints[j - 1], ints[j]);
    }
    for (int i = 0; i + 1 < count; i += 2) {
      int xa = ints[i] + 1;
      xa = (xa >> 16) + ((xa & 32768) >> 15);
      int xb = ints[i + 1] - 1;
      xb = (xb >> 16) + ((xb & 32768) >> 15);
      HLine(xa, xb, y, color);
    }
  }
}

bool ClassicCanvas::ClipLine(int& x1, int& y1, int& x2, int& y2) const {
  // SDL_gfx's _clipLine: Cohen-Sutherland, moving the outside end point onto
  // the frame's edge along a float slope, truncated.
  constexpr int kLeft = 1;
  constexpr int kRight = 2;
  constexpr int kBottom = 4;
  constexpr int kTop = 8;
  const int right = width_ - 1;
  const int bottom = height_ - 1;
  auto encode = [&](int x, int y) {
    int code = 0;
    if (x < 0) {
      code |= kLeft;
    } else if (x > right) {
      code |= kRight;
    }
    if (y < 0) {
      code |= kTop;
    } else if (y > bottom) {
      code |= kBottom;
    }
    return code;
  };
  while (true) {
    int code1 = encode(x1, y1);
    int code2 = encode(x2, y2);
    if ((code1 | code2) == 0) return true;
    if ((code1 & code2) != 0) return false;
    if (code1 == 0) {
      std::swap(x1, x2);
      std::swap(y1, y2);
      std::swap(code1, code2);
    }
    const float m = x2 != x1 ? static_cast<float>(y2 - y1) / static_cast<float>(x2 - x1) : 1.0F;
    if ((code1 & kLeft) != 0) {
      y1 += static_cast<int>(static_cast<float>(0 - x1) * m);
      x1 = 0;
    } else if ((code1 & kRight) != 0) {
      y1 += static_cast<int>(static_cast<float>(right - x1) * m);
      x1 = right;
    } else if ((code1 & kBottom) != 0) {
      if (x2 != x1) x1 += static_cast<int>(static_cast<float>(bottom - y1) / m);
      y1 = bottom;
    } else {
      if (x2 != x1) x1 += static_cast<int>(static_cast<float>(0 - y1) / m);
      y1 = 0;
    }
  }
}

void ClassicCanvas::AaLineInt(int x1, int y1, int x2, int y2, Rgb color) {
  // SDL_gfx's _aalineColor with draw_endpoint = 0: the line clipped to the
  // frame, then Wu's line with an 8-bit intensity taken from a 32-bit error
  // accumulator.
  if (!ClipLine(x1, y1, x2, y2)) return;
  int xx0 = x1;
  int yy0 = y1;
  int xx1 = x2;
  int yy1 = y2;
  if (yy0 > yy1) {
    std::swap(yy0, yy1);
    std::swap(xx0, xx1);
  }
  int dx = xx1 - xx0;
  int dy = yy1 - yy0;
  int xdir = 1;
  if (dx < 0) {
    xdir = -1;
    dx = -dx;
  }
  if (dx == 0) {
    if (dy > 0) {
      VLine(x1, yy0, yy0 + dy, color);
    } else {
      Put(x1, y1, color);
    }
    return;
  }
  if (dy == 0) {
    if (dx > 0) {
      HLine(xx0, xx0 + xdir * dx, y1, color);
    } else {
      Put(x1, y1, color);
    }
    return;
  }
  std::uint32_t erracc = 0;
  Put(x1, y1, color);
  auto weighted = [&](int x, int y, std::uint32_t weight) {
    Blend(x, y, color, static_cast<int>((255U * weight) >> 8));
  };
  if (dy > dx) {
    std::uint32_t erradj = ((static_cast<std::uint32_t>(dx) << 16) / static_cast<std::uint32_t>(dy))
                           << 16;
    int x0pxdir = xx0 + xdir;
    while (--dy) {
      std::uint32_t erracctmp = erracc;
      erracc += erradj;
      if (erracc <= erracctmp) {
        xx0 = x0pxdir;
        x0pxdir += xdir;
      }
      ++yy0;
      std::uint32_t wgt = (erracc >> 24) & 255U;
      weighted(xx0, yy0, 255U - wgt);
      weighted(x0pxdir, yy0, wgt);
    }
  } else {
    std::uint32_t erradj = ((static_cast<std::uint32_t>(dy) << 16) / static_cast<std::uint32_t>(dx))
                           << 16;
    int y0p1 = yy0 + 1;
    while (--dx) {
      std::uint32_t erracctmp = erracc;
      erracc += erradj;
      if (erracc <= erracctmp) {
        yy0 = y0p1;
        ++y0p1;
      }
      xx0 += xdir;
      std::uint32_t wgt = (erracc >> 24) & 255U;
      weighted(xx0, yy0, 255U - wgt);
      weighted(xx0, y0p1, wgt);
    }
  }
}

void ClassicCanvas::AaPolygon(std::span<const Point> points, Rgb color) {
  const std::size_t n = points.size();
  if (n < 3) return;
  for (std::size_t i = 0; i < n; ++i) {
    const Point& a = points[i];
    const Point& b = points[(i + 1) % n];
    AaLineInt(static_cast<int>(a.x), static_cast<int>(a.y), static_cast<int>(b.x),
              static_cast<int>(b.y), color);
  }
}

void ClassicCanvas::FilledCircle(int cx, int cy, int radius, Rgb color) {
  // SDL_gfx's filledCircleColor: the midpoint circle, filled with spans.
  int x = 0;
  int y = radius;
  int ox = -1;
  int oy = -1;
  int df = 1 - radius;
  int d_e = 3;
  int d_se = -2 * radius + 5;
  if (radius < 0) return;
  if (radius == 0) return Put(cx, cy, color);
  do {
    if (oy != y) {
      if (y > 0) {
        HLine(cx - x, cx + x, cy + y, color);
        HLine(cx - x, cx + x, cy - y, color);
      } else {
        HLine(cx - x, cx + x, cy, color);
      }
      oy = y;
    }
    if (ox != x) {
      if (x != y) {
        if (x > 0) {
          HLine(cx - y, cx + y, cy - x, color);
          HLine(cx - y, cx + y, cy + x, color);
        } else {
          HLine(cx - y, cx + y, cy, color);
        }
      }
      ox = x;
    }
    if (df < 0) {
      df += d_e;
      d_e += 2;
      d_se += 2;
    } else {
      df += d_se;
      d_e += 2;
      d_se += 4;
      --y;
    }
    ++x;
  } while (x <= y);
}

void ClassicCanvas::AaCircle(int cx, int cy, int radius, Rgb color) {
  // SDL_gfx's aaellipseColor (pygame-ce's copy, without the original's
  // overdraw) with rx = ry: two octant sweeps whose weights come from the
  // midpoint error.
  if (radius < 0) return;
  if (radius == 0) return Put(cx, cy, color);
  const int a2 = radius * radius;
  const int b2 = a2;
  const int ds = 2 * a2;
  const int dt = 2 * b2;
  const int xc2 = 2 * cx;
  const int yc2 = 2 * cy;
  const double sab = std::sqrt(static_cast<double>(a2 + b2));
  const int dxt = static_cast<int>(std::lrint(static_cast<double>(a2) / sab));
  int t = 0;
  int s = -2 * a2 * radius;
  int d = 0;
  int x = cx;
  int y = cy - radius;
  auto weighted = [&](int px, int py, int weight) {
    Blend(px, py, color, (255 * weight) >> 8);
  };
  auto weights = [](int num, int den) {
    float cp = den != 0 ? std::min(1.0F, static_cast<float>(std::abs(num)) /
                                             static_cast<float>(std::abs(den)))
                        : 1.0F;
    int weight = static_cast<int>(static_cast<std::uint8_t>(cp * 255));
    return std::pair<int, int>{weight, 255 - weight};
  };
  Put(x, y, color);
  Put(xc2 - x, y, color);
  Put(x, yc2 - y, color);
  Put(xc2 - x, yc2 - y, color);
  for (int i = 1; i <= dxt; ++i) {
    --x;
    d += t - b2;
    int ys;
    if (d >= 0) {
      ys = y - 1;
    } else if ((d - s - a2) > 0) {
      if ((2 * d - s - a2) >= 0) {
        ys = y + 1;
      } else {
        ys = y;
        ++y;
        d -= s + a2;
        s += ds;
      }
    } else {
      ++y;
      ys = y + 1;
      d -= s + a2;
      s += ds;
    }
    t -= dt;
    auto [weight, iweight] = weights(d, s);
    int xx = xc2 - x;
    weighted(x, y, iweight);
    weighted(xx, y, iweight);
    weighted(x, ys, weight);
    weighted(xx, ys, weight);
    weighted(x, yc2 - y, iweight);
    weighted(xx, yc2 - y, iweight);
    weighted(x, yc2 - ys, weight);
    weighted(xx, yc2 - ys, weight);
  }
  const int dyt = static_cast<int>(std::lrint(static_cast<double>(b2) / sab));
  for (int i = 1; i <= dyt; ++i) {
    ++y;
    d -= s + a2;
    int xs;
    if (d <= 0) {
      xs = x + 1;
    } else if ((d + t - b2) < 0) {
      if ((2 * d + t - b2) <= 0) {
        xs = x - 1;
      } else {
        xs = x;
        --x;
        d += t - b2;
        t -= dt;
      }
    } else {
      --x;
      xs = x - 1;
      d += t - b2;
      t -= dt;
    }
    s += ds;
    auto [weight, iweight] = weights(d, t);
    int xx = xc2 - x;
    int yy = yc2 - y;
    weighted(x, y, iweight);
    weighted(xx, y, iweight);
    weighted(x, yy, iweight);
    weighted(xx, yy, iweight);
    xx = xc2 - xs;
    weighted(xs, y, weight);
    weighted(xx, y, weight);
    weighted(xs, yy, weight);
    weighted(xx, yy, weight);
  }
}

void ClassicCanvas::Line(Point from, Point to, Rgb color) {
  // pygame-ce's draw_line: the end points truncated to integers, then
  // Bresenham's line in its rosettacode form, both ends drawn.
  int x1 = static_cast<int>(from.x);
  int y1 = static_cast<int>(from.y);
  const int x2 = static_cast<int>(to.x);
  const int y2 = static_cast<int>(to.y);
  const int dx = std::abs(x2 - x1);
  const int dy = std::abs(y2 - y1);
  const int sx = x1 < x2 ? 1 : -1;
  const int sy = y1 < y2 ? 1 : -1;
  int err = (dx > dy ? dx : -dy) / 2;
  while (x1 != x2 || y1 != y2) {
    Put(x1, y1, color);
    const int e2 = err;
    if (e2 > -dx) {
      err -= dy;
      x1 += sx;
    }
    if (e2 < dy) {
      err += dx;
      y1 += sy;
    }
  }
  Put(x2, y2, color);
}

void ClassicCanvas::AaLine(float from_x, float from_y, float to_x, float to_y, Rgb color,
                           bool skip_first_end, bool skip_second_end, bool extra_pixel) {
  // pygame-ce's draw_aaline: Wu's line on float end points, in float. Its
  // clipping is left out: it changes nothing for lines inside the frame.
  float dx = to_x - from_x;
  float dy = to_y - from_y;
  if (std::fabs(dx) < 0.0001F && std::fabs(dy) < 0.0001F) {
    BlendCoverage(static_cast<int>(std::floor(from_x + 0.5F)),
                  static_cast<int>(std::floor(from_y + 0.5F)), color, 1.0F);
    return;
  }
  const bool steep = std::fabs(dx) < std::fabs(dy);
  if (steep) {
    std::swap(from_x, from_y);
    std::swap(to_x, to_y);
    std::swap(dx, dy);
  }
  if (dx < 0) {
    std::swap(from_x, to_x);
    std::swap(from_y, to_y);
    dx = -dx;
    dy = -dy;
  }
  const float gradient = dy / dx;
  // One pixel down, so that (int) rounds down; pixels are drawn one higher.
  from_y += 1.0F;
  to_y += 1.0F;
  auto plot = [&](int x, int y, float brightness) {
    if (steep) {
      BlendCoverage(y, x, color, brightness);
    } else {
      BlendCoverage(x, y, color, brightness);
    }
  };
  // An end point is one pixel wide: its two pixels are weighted by the part
  // of that pixel the line covers.
  auto end_point = [&](int x_pixel, float y_endpoint, float x_gap) {
    auto y = static_cast<int>(y_endpoint);
    float brightness = y_endpoint - static_cast<float>(y);
    if (static_cast<float>(y) < y_endpoint) plot(x_pixel, y, brightness * x_gap);
    plot(x_pixel, y - 1, (1 - brightness) * x_gap);
  };
  int x_pixel_start = 0;
  float intersect_y = 0;
  if (!skip_first_end || extra_pixel) {
    x_pixel_start = static_cast<int>(from_x);
    float y_endpoint = from_y + gradient * (static_cast<float>(x_pixel_start) - from_x);
    end_point(x_pixel_start, y_endpoint, 1 + static_cast<float>(x_pixel_start) - from_x);
    intersect_y = y_endpoint + gradient;
    ++x_pixel_start;
  }
  if (skip_first_end) {
    x_pixel_start = static_cast<int>(std::ceil(from_x));
    intersect_y = from_y + gradient * (static_cast<float>(x_pixel_start) - from_x);
  }
  const auto x_pixel_end = static_cast<int>(std::ceil(to_x));
  if (!skip_second_end || extra_pixel) {
    float y_endpoint = to_y + gradient * (static_cast<float>(x_pixel_end) - to_x);
    end_point(x_pixel_end, y_endpoint, 1 - static_cast<float>(x_pixel_end) + to_x);
  }
  for (int x = x_pixel_start; x < x_pixel_end; ++x) {
    auto y = static_cast<int>(intersect_y);
    float brightness = 1 - intersect_y + static_cast<float>(y);
    plot(x, y - 1, brightness);
    if (static_cast<float>(y) < intersect_y) plot(x, y, 1 - brightness);
    intersect_y += gradient;
  }
}

void ClassicCanvas::AaLines(std::span<const Point> points, Rgb color) {
  // pygame-ce's aalines: a joint's pixels are drawn once, by the segment
  // whose main loop reaches them, unless the joint lies on a pixel corner or
  // the line turns between steep and shallow there. Its test of the first
  // joint compares the second segment's dx with the first's y span, as
  // pygame-ce does.
  const std::size_t n = points.size();
  if (n < 2) return;
  auto fx = [&](std::size_t i) { return static_cast<float>(points[i].x); };
  auto fy = [&](std::size_t i) { return static_cast<float>(points[i].y); };
  auto steep = [&](std::size_t a, std::size_t b) {
    return std::fabs(fx(b) - fx(a)) < std::fabs(fy(b) - fy(a));
  };
  auto on_corner = [&](std::size_t i) {
    return std::round(fx(i)) == fx(i) && std::round(fy(i)) == fy(i);
  };
  if (n == 2) {
    AaLine(fx(0), fy(0), fx(1), fy(1), color, false, false, false);
    return;
  }
  bool first_steep_next = std::fabs(fx(2) - fx(1)) < std::fabs(fy(2) - fy(0));
  AaLine(fx(0), fy(0), fx(1), fy(1), color, false, !on_corner(1),
         steep(0, 1) && !first_steep_next);
  for (std::size_t i = 2; i < n; ++i) {
    bool extra = steep(i - 2, i - 1) != steep(i - 1, i);
    bool skip = !on_corner(i);
    AaLine(fx(i - 1), fy(i - 1), fx(i), fy(i), color, skip, i + 1 < n && skip, extra);
  }
}

}  // namespace envpool_core::classic
