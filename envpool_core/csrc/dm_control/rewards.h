// dm_control's reward shaping (dm_control/utils/rewards.py): tolerance() is 1
// inside [lower, upper] and falls off outside with a sigmoid of the distance
// in units of `margin`, so that it equals `value_at_margin` one margin away.
#pragma once

#include <limits>

namespace envpool_core::dm_control {

enum class Sigmoid {
  kGaussian,
  kHyperbolic,
  kLongTail,
  kReciprocal,
  kCosine,
  kLinear,
  kQuadratic,
  kTanhSquared
};

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kDefaultValueAtMargin = 0.1;

// rewards.tolerance(x, bounds=(lower, upper), margin, sigmoid, value_at_margin)
// for a scalar x. The arguments are the tasks' constants: they are not checked.
double Tolerance(double x, double lower, double upper, double margin = 0.0,
                 Sigmoid sigmoid = Sigmoid::kGaussian,
                 double value_at_margin = kDefaultValueAtMargin);

}  // namespace envpool_core::dm_control
