// MountainCar-v0 with gymnasium's dynamics (discrete push, float64 state).
#pragma once

#include <array>
#include <cstdint>

#include "classic/classic_env.h"
#include "core/task_registry.h"

namespace envpool_core::classic {

class MountainCarEnv : public ClassicEnv {
 public:
  MountainCarEnv(const EnvSpec& spec, std::uint64_t seed);
  bool Reset(OutputRow& row) override;
  void Step(const void* action, OutputRow& row) override;
  void Render(std::uint8_t* rgb) override;

  static EnvSpec MakeSpec(const Config& config);

 private:
  void WriteObs(OutputRow& row) const;

  std::array<double, 2> state_{};  // position, velocity
  double goal_velocity_;
  bool state_in_info_;
};

void RegisterMountainCar(TaskRegistry& registry);

}  // namespace envpool_core::classic
