// Pendulum-v1 with gymnasium's dynamics (semi-implicit Euler, float64 state); Pendulum-v0
// (EnvPool's `version=0`) with gym's v0 order, where the angle moves by the velocity before
// the velocity is clipped to the speed limit.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "classic/classic_env.h"
#include "classic/pendulum_arrow.h"
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
  // The last torque, which gymnasium's picture draws as an arrow; none after a reset.
  float last_u_ = 0.0F;
  bool has_last_u_ = false;
  std::shared_ptr<const PendulumArrow> arrow_;  // null: no arrow (gymnasium's assets not found)
};

void RegisterPendulum(TaskRegistry& registry);

// Reads gymnasium's arrow image from its classic-control assets directory, for
// every Pendulum made afterwards.
void LoadPendulumArrow(const std::string& assets_dir);

}  // namespace envpool_core::classic
