// MountainCarContinuous-v0 with gymnasium's dynamics, including its mixed
// float64/float32 arithmetic (see Integrate).
#pragma once

#include <array>
#include <cstdint>

#include "classic/classic_env.h"
#include "core/task_registry.h"

namespace envpool_core::classic {

class ContinuousMountainCarEnv : public ClassicEnv {
 public:
  ContinuousMountainCarEnv(const EnvSpec& spec, std::uint64_t seed);
  bool Reset(OutputRow& row) override;
  void Step(const void* action, OutputRow& row) override;
  void Render(std::uint8_t* rgb) override;

  static EnvSpec MakeSpec(const Config& config);

 private:
  // One step with the state read as T; returns whether the goal is reached.
  template <typename T>
  bool Integrate(float action);
  void WriteObs(OutputRow& row) const;

  std::array<double, 2> state_{};  // position, velocity
  // gymnasium's state is a float64 array after reset and a float32 array after
  // a step, and the dtype decides the precision of the next step.
  bool state_is_float32_ = false;
  double goal_velocity_;
  bool state_in_info_;
};

void RegisterContinuousMountainCar(TaskRegistry& registry);

}  // namespace envpool_core::classic
