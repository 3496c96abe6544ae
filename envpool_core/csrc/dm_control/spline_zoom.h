// scipy.ndimage.zoom(x, factor) of a 2-D float64 array with scipy's defaults
// (cubic B-spline, prefilter, mode 'constant', grid_mode False), the way
// dm_control's quadruped escape task smooths its random terrain bumps.
//
// The arithmetic is scipy's (1.17), operation for operation, so the result is
// the same to the last bit:
//  - the prefilter: for each axis in turn (columns, then rows) each line is
//    scaled by the filter's gain, then filtered forward and backward with the
//    pole sqrt(3) - 2, the first coefficient of each pass from mirror boundary
//    conditions (the initialisation scipy uses for mode 'constant');
//  - the zoom: output index k of an axis samples the input at k * (n_in - 1) /
//    (n_out - 1); a coordinate past the last input sample (rounding can put it
//    there) gives cval 0, as scipy's 'constant' mode; taps outside the array
//    read mirrored coefficients; the four cubic weights of each coordinate are
//    scipy's polynomials with the last one 1 minus the others; the output sums
//    coefficient * row weight * column weight over the 4 x 4 taps, row tap
//    outer, left to right.
// Shapes are fixed at construction, where the per-axis taps and weights are
// computed once; Apply allocates nothing.
#pragma once

#include <array>
#include <vector>

namespace envpool_core::dm_control {

class SplineZoom {
 public:
  // Zooms an in_rows x in_cols array by `factor` on both axes: the output is
  // round(in_rows * factor) x round(in_cols * factor), as scipy's.
  SplineZoom(int in_rows, int in_cols, double factor);

  int out_rows() const { return rows_.out; }
  int out_cols() const { return cols_.out; }

  // `in`: in_rows x in_cols, row-major; `out`: out_rows x out_cols, row-major.
  void Apply(const double* in, double* out);

 private:
  // One axis's sampling: per output index, whether it is past the input
  // (cval), the input indices of its four taps and their weights.
  struct Axis {
    int in = 0;
    int out = 0;
    std::vector<char> outside;
    std::vector<std::array<int, 4>> taps;
    std::vector<std::array<double, 4>> weights;
  };
  static Axis MakeAxis(int in, double factor);
  // The prefilter of one line of `n` values `stride` apart, in place.
  void FilterLine(double* line, int n, int stride);

  Axis rows_, cols_;
  std::vector<double> coefficients_;  // the prefiltered input
  std::vector<double> line_;          // one line being filtered
};

}  // namespace envpool_core::dm_control
