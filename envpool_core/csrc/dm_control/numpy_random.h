// numpy's legacy np.random.RandomState, whose draws dm_control's tasks make
// their start states with (base.Task.random): the same seed gives the same
// numbers here, so an env of seed s starts where suite.load(..., task_kwargs=
// {"random": s}) starts.
//
// RandomState(s) for an integer s < 2**32 seeds its Mersenne Twister as
// std::mt19937(s) does (init_genrand); random_sample() is genrand_res53 (53
// bits from two 32-bit words); randn() is the polar Box-Muller method that
// keeps the second value of each pair for the next call.
#pragma once

#include <cstdint>
#include <random>

namespace envpool_core::dm_control {

class NumpyRandomState {
 public:
  explicit NumpyRandomState(std::uint64_t seed) { Seed(seed); }

  // RandomState(seed); numpy takes the seed modulo nothing: it must be < 2**32,
  // which the option's bounds ensure. Drops a kept normal draw.
  void Seed(std::uint64_t seed) {
    mt_.seed(static_cast<std::mt19937::result_type>(seed));
    has_gauss_ = false;
  }

  // random_sample() / rand(): uniform on [0, 1) with 53 random bits.
  double RandomSample() {
    std::uint32_t a = mt_() >> 5;
    std::uint32_t b = mt_() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }

  // uniform(low, high): low + (high - low) * random_sample().
  double Uniform(double low, double high) { return low + (high - low) * RandomSample(); }

  // randn() / standard_normal() of the legacy generator.
  double StandardNormal();

  // randint(n) for 0 < n <= 2**32: masked rejection sampling on 32-bit words,
  // the smallest all-ones mask that covers n - 1, as numpy's legacy generator.
  std::int64_t RandInt(std::int64_t n) {
    auto max = static_cast<std::uint32_t>(n - 1);
    std::uint32_t mask = max;
    for (int shift = 1; shift < 32; shift <<= 1) mask |= mask >> shift;
    std::uint32_t value;
    do {
      value = static_cast<std::uint32_t>(mt_()) & mask;
    } while (value > max);
    return value;
  }

 private:
  std::mt19937 mt_;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

}  // namespace envpool_core::dm_control
