#include "classic/mountain_car_picture.h"

#include <array>
#include <cmath>

#include "classic/classic_canvas.h"

namespace envpool_core::classic {

namespace {
constexpr double kMinPosition = -1.2;
constexpr double kMaxPosition = 0.6;
constexpr double kScale = kMountainCarRenderWidth / (kMaxPosition - kMinPosition);
constexpr double kCarWidth = 40;
constexpr double kCarHeight = 20;
constexpr double kClearance = 10;
constexpr int kCurvePoints = 100;

double Height(double x) { return std::sin(3 * x) * .45 + .55; }
}  // namespace

void DrawMountainCar(std::uint8_t* rgb, double position, double goal_position) {
  ClassicCanvas canvas(rgb, kMountainCarRenderHeight, kMountainCarRenderWidth);
  canvas.Fill({255, 255, 255});

  // np.linspace(min, max, 100): start + i * step, with the last point exactly max.
  std::array<Point, kCurvePoints> curve{};
  const double step = (kMaxPosition - kMinPosition) / (kCurvePoints - 1);
  for (int i = 0; i < kCurvePoints; ++i) {
    double x = i == kCurvePoints - 1 ? kMaxPosition : kMinPosition + i * step;
    curve[i] = {(x - kMinPosition) * kScale, Height(x) * kScale};
  }
  canvas.AaLines(curve, {0, 0, 0});

  const double angle = std::cos(3 * position);
  const double base_x = (position - kMinPosition) * kScale;
  const double base_y = kClearance + Height(position) * kScale;
  const double l = -kCarWidth / 2;
  const double r = kCarWidth / 2;
  const double t = kCarHeight;
  const double b = 0;
  std::array<Point, 4> car{};
  const std::array<Point, 4> corners = {Point{l, b}, Point{l, t}, Point{r, t}, Point{r, b}};
  for (int i = 0; i < 4; ++i) {
    Point c = Rotated(corners[i], angle);
    car[i] = {c.x + base_x, c.y + base_y};
  }
  canvas.AaPolygon(car, {0, 0, 0});
  canvas.FilledPolygon(car, {0, 0, 0});

  const int wheel_radius = static_cast<int>(kCarHeight / 2.5);
  for (Point offset : {Point{kCarWidth / 4, 0}, Point{-kCarWidth / 4, 0}}) {
    Point c = Rotated(offset, angle);
    int wx = static_cast<int>(c.x + base_x);
    int wy = static_cast<int>(c.y + base_y);
    canvas.AaCircle(wx, wy, wheel_radius, {128, 128, 128});
    canvas.FilledCircle(wx, wy, wheel_radius, {128, 128, 128});
  }

  const int flagx = static_cast<int>((goal_position - kMinPosition) * kScale);
  const int flagy1 = static_cast<int>(Height(goal_position) * kScale);
  const int flagy2 = flagy1 + 50;
  canvas.VLine(flagx, flagy1, flagy2, {0, 0, 0});
  const std::array<Point, 3> flag = {Point{static_cast<double>(flagx), static_cast<double>(flagy2)},
                                     Point{static_cast<double>(flagx), flagy2 - 10.0},
                                     Point{flagx + 25.0, flagy2 - 5.0}};
  canvas.AaPolygon(flag, {204, 204, 0});
  canvas.FilledPolygon(flag, {204, 204, 0});
}

}  // namespace envpool_core::classic
