// CartPole-v0/v1 with gymnasium's dynamics (Euler integration, float64 state).
#pragma once

#include <array>
#include <cstdint>

#include "classic/classic_env.h"
#include "core/task_registry.h"

namespace envpool_core::classic {

class CartPoleEnv : public ClassicEnv {
 public:
  CartPoleEnv(const EnvSpec& spec, std::uint64_t seed);
  bool Reset(OutputRow& row) override;
  void Step(const void* action, OutputRow& row) override;
  void Render(std::uint8_t* rgb) override;

  static EnvSpec MakeSpec(const Config& config);

 private:
  void WriteObs(OutputRow& row) const;

  std::array<double, 4> state_{};
  bool state_in_info_;
};

void RegisterCartPole(TaskRegistry& registry);

}  // namespace envpool_core::classic
