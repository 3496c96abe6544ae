#include "dm_control/spline_zoom.h"

#include <cmath>
#include <stdexcept>

namespace envpool_core::dm_control {

namespace {

// The pole of the cubic B-spline's prefilter, sqrt(3) - 2, as scipy writes it
// (a literal: computing it could round differently).
constexpr double kPole = -0.267949192431122706472553658494127633;

// An index of a line of `len` samples mirrored into it (whole-sample symmetric:
// -1 -> 1, len -> len - 2), for taps past either end.
int Mirror(int index, int len) {
  if (len <= 1) return 0;
  int period = 2 * len - 2;
  if (index < 0) {
    index += period * (-index / period);
    return index <= 1 - len ? index + period : -index;
  }
  if (index >= len) {
    index -= period * (index / period);
    if (index >= len) index = period - index;
  }
  return index;
}

}  // namespace

SplineZoom::SplineZoom(int in_rows, int in_cols, double factor)
    : rows_(MakeAxis(in_rows, factor)),
      cols_(MakeAxis(in_cols, factor)),
      coefficients_(static_cast<std::size_t>(in_rows) * static_cast<std::size_t>(in_cols)),
      line_(static_cast<std::size_t>(std::max(in_rows, in_cols))) {}

SplineZoom::Axis SplineZoom::MakeAxis(int in, double factor) {
  if (in < 2) throw std::invalid_argument("SplineZoom: each axis needs at least 2 samples");
  Axis axis;
  axis.in = in;
  axis.out = static_cast<int>(std::nearbyint(in * factor));  // Python's round()
  if (axis.out < 2) throw std::invalid_argument("SplineZoom: the output needs 2 samples an axis");
  const double step = static_cast<double>(in - 1) / static_cast<double>(axis.out - 1);
  axis.outside.resize(axis.out);
  axis.taps.resize(axis.out);
  axis.weights.resize(axis.out);
  for (int k = 0; k < axis.out; ++k) {
    double x = static_cast<double>(k) * step;
    axis.outside[k] = x < 0.0 || x > in - 1;
    if (axis.outside[k]) continue;
    double floor_x = std::floor(x);
    int start = static_cast<int>(floor_x) - 1;
    for (int t = 0; t < 4; ++t) axis.taps[k][t] = Mirror(start + t, in);
    // The cubic B-spline's weights at the offset from the knot below x.
    double y = x - floor_x;
    double z = 1.0 - y;
    std::array<double, 4>& w = axis.weights[k];
    w[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
    w[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
    w[0] = z * z * z / 6.0;
    w[3] = 1.0;
    for (int t = 0; t < 3; ++t) w[3] -= w[t];
  }
  return axis;
}

void SplineZoom::FilterLine(double* values, int n, int stride) {
  double* c = line_.data();
  for (int i = 0; i < n; ++i) c[i] = values[i * stride];
  const double z = kPole;
  const double gain = 1.0 * ((1.0 - z) * (1.0 - 1.0 / z));
  for (int i = 0; i < n; ++i) c[i] *= gain;
  // The causal pass, its first coefficient from the mirrored line.
  const double z_n_1 = std::pow(z, n - 1);
  double z_i = z;
  c[0] = c[0] + z_n_1 * c[n - 1];
  for (int i = 1; i < n - 1; ++i) {
    c[0] += z_i * (c[i] + z_n_1 * c[n - 1 - i]);
    z_i *= z;
  }
  c[0] /= 1 - z_n_1 * z_n_1;
  for (int i = 1; i < n; ++i) c[i] += z * c[i - 1];
  // The anticausal pass.
  c[n - 1] = (z * c[n - 2] + c[n - 1]) * z / (z * z - 1);
  for (int i = n - 2; i >= 0; --i) c[i] = z * (c[i + 1] - c[i]);
  for (int i = 0; i < n; ++i) values[i * stride] = c[i];
}

void SplineZoom::Apply(const double* in, double* out) {
  const int nr = rows_.in, nc = cols_.in;
  std::copy(in, in + static_cast<std::ptrdiff_t>(nr) * nc, coefficients_.begin());
  for (int j = 0; j < nc; ++j) FilterLine(coefficients_.data() + j, nr, nc);  // axis 0
  for (int i = 0; i < nr; ++i) FilterLine(coefficients_.data() + i * nc, nc, 1);  // axis 1
  for (int r = 0; r < rows_.out; ++r) {
    for (int k = 0; k < cols_.out; ++k) {
      double t = 0.0;
      if (!rows_.outside[r] && !cols_.outside[k]) {
        for (int a = 0; a < 4; ++a) {
          const double* row = coefficients_.data() + rows_.taps[r][a] * nc;
          for (int b = 0; b < 4; ++b) {
            double coeff = row[cols_.taps[k][b]];
            coeff *= rows_.weights[r][a];
            coeff *= cols_.weights[k][b];
            t += coeff;
          }
        }
      }
      *out++ = t;
    }
  }
}

}  // namespace envpool_core::dm_control
