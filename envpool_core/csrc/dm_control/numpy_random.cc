#include "dm_control/numpy_random.h"

#include <cmath>

namespace envpool_core::dm_control {

double NumpyRandomState::StandardNormal() {
  if (has_gauss_) {
    has_gauss_ = false;
    return gauss_;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * RandomSample() - 1.0;
    x2 = 2.0 * RandomSample() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  // numpy computes the factor once and returns the second product first.
  double f = std::sqrt(-2.0 * std::log(r2) / r2);
  gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

}  // namespace envpool_core::dm_control
