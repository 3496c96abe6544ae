// The base of the classic-control envs: the random stream their start states
// (and Acrobot's torque noise) are drawn from.
#pragma once

#include <cstdint>
#include <random>

#include "core/env.h"

namespace envpool_core::classic {

class ClassicEnv : public Env {
 public:
  void Seed(std::uint64_t seed) override { rng_.seed(static_cast<std::mt19937::result_type>(seed)); }

 protected:
  explicit ClassicEnv(std::uint64_t seed) : rng_(static_cast<std::mt19937::result_type>(seed)) {}

  std::mt19937 rng_;  // seeded and drawn as EnvPool's, so a seed gives EnvPool's starts
};

}  // namespace envpool_core::classic
