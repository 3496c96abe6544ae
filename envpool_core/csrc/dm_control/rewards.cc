#include "dm_control/rewards.h"

#include <cmath>

namespace envpool_core::dm_control {

namespace {

// rewards._sigmoids: 1 at x == 0, value_at_1 at |x| == 1.
double SigmoidValue(double x, double value_at_1, Sigmoid sigmoid) {
  switch (sigmoid) {
    case Sigmoid::kGaussian: {
      double scale = std::sqrt(-2.0 * std::log(value_at_1));
      double s = x * scale;
      return std::exp(-0.5 * (s * s));
    }
    case Sigmoid::kHyperbolic:
      return 1.0 / std::cosh(x * std::acosh(1.0 / value_at_1));
    case Sigmoid::kLongTail: {
      double s = x * std::sqrt(1.0 / value_at_1 - 1.0);
      return 1.0 / (s * s + 1.0);
    }
    case Sigmoid::kReciprocal:
      return 1.0 / (std::fabs(x) * (1.0 / value_at_1 - 1.0) + 1.0);
    case Sigmoid::kCosine: {
      double s = x * (std::acos(2.0 * value_at_1 - 1.0) / M_PI);
      return std::fabs(s) < 1.0 ? (1.0 + std::cos(M_PI * s)) / 2.0 : 0.0;
    }
    case Sigmoid::kLinear: {
      double s = x * (1.0 - value_at_1);
      return std::fabs(s) < 1.0 ? 1.0 - s : 0.0;
    }
    case Sigmoid::kQuadratic: {
      double s = x * std::sqrt(1.0 - value_at_1);
      return std::fabs(s) < 1.0 ? 1.0 - s * s : 0.0;
    }
    case Sigmoid::kTanhSquared: {
      double t = std::tanh(x * std::atanh(std::sqrt(1.0 - value_at_1)));
      return 1.0 - t * t;
    }
  }
  return 0.0;
}

}  // namespace

double Tolerance(double x, double lower, double upper, double margin, Sigmoid sigmoid,
                 double value_at_margin) {
  bool in_bounds = lower <= x && x <= upper;
  if (margin == 0.0) return in_bounds ? 1.0 : 0.0;
  if (in_bounds) return 1.0;
  double d = (x < lower ? lower - x : x - upper) / margin;
  return SigmoidValue(d, value_at_margin, sigmoid);
}

}  // namespace envpool_core::dm_control
