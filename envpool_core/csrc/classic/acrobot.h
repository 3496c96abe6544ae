// Acrobot-v1 with gymnasium's "book" dynamics, integrated with its rk4 over
// one 0.2 s step (float64 state).
#pragma once

#include <array>
#include <cstdint>

#include "classic/classic_env.h"
#include "core/task_registry.h"

namespace envpool_core::classic {

class AcrobotEnv : public ClassicEnv {
 public:
  AcrobotEnv(const EnvSpec& spec, std::uint64_t seed);
  bool Reset(OutputRow& row) override;
  void Step(const void* action, OutputRow& row) override;
  void Render(std::uint8_t* rgb) override;

  static EnvSpec MakeSpec(const Config& config);

 private:
  // rk4's augmented state: theta1, theta2, dtheta1, dtheta2, torque.
  using Augmented = std::array<double, 5>;
  static Augmented Dsdt(const Augmented& s);
  void WriteObs(OutputRow& row) const;

  std::array<double, 4> state_{};  // theta1, theta2, dtheta1, dtheta2
  double torque_noise_max_;
  bool state_in_info_;
};

void RegisterAcrobot(TaskRegistry& registry);

}  // namespace envpool_core::classic
