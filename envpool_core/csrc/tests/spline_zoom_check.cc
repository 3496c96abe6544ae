// Feeds arrays through SplineZoom for tests/test_dm_control.py, which compares
// the results with scipy.ndimage.zoom bit for bit. stdin: records of int32
// rows, int32 cols, float64 factor, rows * cols float64 (row-major); stdout:
// per record int32 out_rows, int32 out_cols, then the zoomed float64 values.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "dm_control/spline_zoom.h"

int main() {
  std::int32_t shape[2];
  double factor;
  while (std::fread(shape, sizeof shape, 1, stdin) == 1) {
    if (std::fread(&factor, sizeof factor, 1, stdin) != 1) return 1;
    std::vector<double> in(static_cast<std::size_t>(shape[0]) * shape[1]);
    if (std::fread(in.data(), sizeof(double), in.size(), stdin) != in.size()) return 1;
    envpool_core::dm_control::SplineZoom zoom(shape[0], shape[1], factor);
    std::vector<double> out(static_cast<std::size_t>(zoom.out_rows()) * zoom.out_cols());
    zoom.Apply(in.data(), out.data());
    std::int32_t out_shape[2] = {zoom.out_rows(), zoom.out_cols()};
    std::fwrite(out_shape, sizeof out_shape, 1, stdout);
    std::fwrite(out.data(), sizeof(double), out.size(), stdout);
  }
  return 0;
}
