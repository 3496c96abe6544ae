#include "classic/mountain_car.h"

#include <algorithm>
#include <cmath>

#include "classic/classic_task.h"
#include "classic/mountain_car_picture.h"
#include "classic/state_info.h"

namespace envpool_core::classic {

namespace {
constexpr double kMinPosition = -1.2;
constexpr double kMaxPosition = 0.6;
constexpr double kMaxSpeed = 0.07;
constexpr double kGoalPosition = 0.5;
constexpr double kForce = 0.001;
constexpr double kGravity = 0.0025;
}  // namespace

MountainCarEnv::MountainCarEnv(const EnvSpec& spec, std::uint64_t seed)
    : ClassicEnv(seed),
      goal_velocity_(spec.config.GetFloat("goal_velocity")),
      state_in_info_(spec.config.GetBool("state_in_info")) {}

EnvSpec MountainCarEnv::MakeSpec(const Config& config) {
  EnvSpec spec;
  spec.obs.push_back(MakeArraySpec<float>("obs", {2}, {kMinPosition, -kMaxSpeed},
                                          {kMaxPosition, kMaxSpeed}));
  AddStateInfo(config, 2, &spec);
  spec.render_shape = {kMountainCarRenderHeight, kMountainCarRenderWidth};
  spec.render_fps = kMountainCarRenderFps;
  spec.action = DiscreteActionSpec(3);
  return spec;
}

bool MountainCarEnv::Reset(OutputRow& row) {
  state_[0] = std::uniform_real_distribution<double>(-0.6, -0.4)(rng_);
  state_[1] = 0.0;
  WriteObs(row);
  return true;
}

void MountainCarEnv::Step(const void* action, OutputRow& row) {
  // The Python layer rejects actions outside [0, 2]; clamping keeps a bad
  // action from a direct C++ caller harmless.
  int a = std::clamp(*static_cast<const std::int32_t*>(action), 0, 2);
  auto& [position, velocity] = state_;
  velocity += (a - 1) * kForce + std::cos(3 * position) * (-kGravity);
  velocity = std::clamp(velocity, -kMaxSpeed, kMaxSpeed);
  position += velocity;
  position = std::clamp(position, kMinPosition, kMaxPosition);
  // The left wall is inelastic.
  if (position == kMinPosition && velocity < 0) velocity = 0;
  row.terminated = position >= kGoalPosition && velocity >= goal_velocity_;
  row.reward = -1.0F;
  WriteObs(row);
}

void MountainCarEnv::WriteObs(OutputRow& row) const {
  float* obs = row.Obs<float>();
  obs[0] = static_cast<float>(state_[0]);
  obs[1] = static_cast<float>(state_[1]);
  if (state_in_info_) WriteStateInfo(row, state_.data(), 2);
}

void MountainCarEnv::Render(std::uint8_t* rgb) { DrawMountainCar(rgb, state_[0], kGoalPosition); }

void RegisterMountainCar(TaskRegistry& registry) {
  AddClassicTask<MountainCarEnv>(
      registry, "MountainCar-v0", 200,
      {OptionDef::Float("goal_velocity", 0.0, "velocity the car must reach at the goal")});
}

}  // namespace envpool_core::classic
