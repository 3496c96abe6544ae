// Python and NumPy arithmetic that C++ does not give by default. Gymnasium's
// classic-control envs are written in Python/NumPy; to match them to the last
// bit (so alignment tests can use float64 tolerances of 1e-9 and the
// terminated flags never disagree) these helpers reproduce the few places
// where Python's semantics differ from the obvious C++ expression.
#pragma once

#include <cmath>

namespace envpool_core::classic {

// `x**2` on a Python float or a NumPy float64/float32 scalar calls libm's
// pow()/powf(), which glibc does not round correctly in about 1 case in 1000,
// whereas x*x is always correctly rounded. Compilers rewrite pow(x, 2) into
// x*x, so the exponent is read through a volatile to keep the libm call.
// (NumPy's np.square and `**2` on arrays do use x*x; call sites choose.)
inline double PyPow2(double x) {
  volatile double two = 2.0;
  return std::pow(x, two);
}
inline float PyPow2(float x) {
  volatile float two = 2.0F;
  return std::pow(x, two);
}

// NumPy's float `a % b` (npy_divmod): the result takes the sign of b, unlike
// std::fmod, and an exact zero becomes +0.0 for positive b. b must not be 0.
inline double PyMod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

// Under NumPy 2's promotion rules (NEP 50) a Python float that meets a
// float32 operand is first converted to float32 (from its float64 value, so
// not the same as a float literal in every case) and the operation is done in
// float32, comparisons included.
constexpr float F32(double x) { return static_cast<float>(x); }

}  // namespace envpool_core::classic
