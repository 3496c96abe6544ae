// Pendulum-v1 with gymnasium's dynamics (semi-implicit Euler, float64 state).
#pragma once

#include <array>
#include <cstdint>

#include "classic/classic_env.h"
#include "core/task_registry.h"

namespace envpool_core::classic {

class PendulumEnv : public ClassicEnv {
 public:
  PendulumEnv(const EnvSpec& spec, std::uint64_t seed);
  bool Reset(OutputRow& row) override;
  void Step(const void* action, OutputRow& row) override;

  static EnvSpec MakeSpec(const Config& config);

 private:
  void WriteObs(OutputRow& row) const;

  std::array<double, 2> state_{};  // theta (0 = upright), theta_dot
  double g_;
  bool state_in_info_;
};

void RegisterPendulum(TaskRegistry& registry);

}  // namespace envpool_core::classic
