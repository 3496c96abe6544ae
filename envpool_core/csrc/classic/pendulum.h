// Pendulum-v1 with gymnasium's dynamics (semi-implicit Euler, float64 state); Pendulum-v0
// (EnvPool's `version=0`) with gym's v0 order, where the angle moves by the velocity before
// the velocity is clipped to the speed limit.
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
  void Render(std::uint8_t* rgb) override;

  static EnvSpec MakeSpec(const Config& config);

 private:
  void WriteObs(OutputRow& row) const;

  std::array<double, 2> state_{};  // theta (0 = upright), theta_dot
  double g_;
  bool clip_before_move_;  // version 1: the angle moves by the clipped velocity
  bool state_in_info_;
};

void RegisterPendulum(TaskRegistry& registry);

}  // namespace envpool_core::classic
