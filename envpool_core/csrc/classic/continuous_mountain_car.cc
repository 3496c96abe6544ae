#include "classic/continuous_mountain_car.h"

#include <cmath>

#include "classic/classic_task.h"
#include "classic/mountain_car_picture.h"
#include "classic/py_math.h"
#include "classic/state_info.h"

namespace envpool_core::classic {

namespace {
constexpr double kMinAction = -1.0;
constexpr double kMaxAction = 1.0;
constexpr double kMinPosition = -1.2;
constexpr double kMaxPosition = 0.6;
constexpr double kMaxSpeed = 0.07;
constexpr double kGoalPosition = 0.45;
constexpr double kPower = 0.0015;
constexpr double kGravity = 0.0025;
constexpr double kGoalReward = 100.0;
}  // namespace

ContinuousMountainCarEnv::ContinuousMountainCarEnv(const EnvSpec& spec, std::uint64_t seed)
    : ClassicEnv(seed),
      goal_velocity_(spec.config.GetFloat("goal_velocity")),
      state_in_info_(spec.config.GetBool("state_in_info")) {}

EnvSpec ContinuousMountainCarEnv::MakeSpec(const Config& config) {
  EnvSpec spec;
  spec.obs.push_back(MakeArraySpec<float>("obs", {2}, {kMinPosition, -kMaxSpeed},
                                          {kMaxPosition, kMaxSpeed}));
  AddStateInfo(config, 2, &spec);
  spec.render_shape = {kMountainCarRenderHeight, kMountainCarRenderWidth};
  spec.render_fps = kMountainCarRenderFps;
  spec.action = MakeArraySpec<float>("action", {1}, {kMinAction}, {kMaxAction});
  return spec;
}

bool ContinuousMountainCarEnv::Reset(OutputRow& row) {
  state_[0] = std::uniform_real_distribution<double>(-0.6, -0.4)(rng_);
  state_[1] = 0.0;
  state_is_float32_ = false;
  WriteObs(row);
  return true;
}

// gymnasium's step is plain Python on NumPy scalars, and NumPy 2 (NEP 50)
// turns every operation between a float32 scalar and a Python float into
// float32 arithmetic, comparisons included. Which values are float32 depends
// on the state's dtype (T: float64 right after reset, float32 afterwards) and
// on whether the action was clipped (the clipped force is a Python float).
// The comments give the Python types; T converts Python floats as NumPy does.
template <typename T>
bool ContinuousMountainCarEnv::Integrate(float action) {
  T position = static_cast<T>(state_[0]);
  T velocity = static_cast<T>(state_[1]);

  // math.cos(3 * position): the product in T, the cosine in float64.
  double gravity_term = kGravity * std::cos(static_cast<double>(3 * position));
  double increment;
  if (action < F32(kMinAction) || action > F32(kMaxAction)) {
    // force = min(max(action, -1.0), 1.0) is the Python float bound.
    double force = action < F32(kMinAction) ? kMinAction : kMaxAction;
    increment = force * kPower - gravity_term;
  } else {
    // force is the float32 action: float32 product and difference.
    float increment32 = action * F32(kPower) - F32(gravity_term);
    increment = increment32;
  }
  velocity += static_cast<T>(increment);

  // A clipped value becomes a Python number; it converts to T exactly as NumPy
  // would in the arithmetic below, but compares with goal_velocity in float64.
  double velocity_literal = 0.0;
  bool velocity_is_literal = false;
  if (velocity > static_cast<T>(kMaxSpeed)) {
    velocity = static_cast<T>(kMaxSpeed);
    velocity_literal = kMaxSpeed;
    velocity_is_literal = true;
  }
  if (velocity < static_cast<T>(-kMaxSpeed)) {
    velocity = static_cast<T>(-kMaxSpeed);
    velocity_literal = -kMaxSpeed;
    velocity_is_literal = true;
  }
  position += velocity;
  // Clipped positions (Python floats) compare the same in T and float64 below.
  if (position > static_cast<T>(kMaxPosition)) position = static_cast<T>(kMaxPosition);
  if (position < static_cast<T>(kMinPosition)) position = static_cast<T>(kMinPosition);
  // The left wall is inelastic (velocity becomes the Python int 0).
  if (position == static_cast<T>(kMinPosition) && velocity < 0) {
    velocity = 0;
    velocity_literal = 0.0;
    velocity_is_literal = true;
  }
  bool fast_enough = velocity_is_literal ? velocity_literal >= goal_velocity_
                                         : velocity >= static_cast<T>(goal_velocity_);
  bool terminated = position >= static_cast<T>(kGoalPosition) && fast_enough;

  // self.state = np.array([position, velocity], dtype=np.float32)
  state_[0] = static_cast<float>(position);
  state_[1] = static_cast<float>(velocity);
  state_is_float32_ = true;
  return terminated;
}

void ContinuousMountainCarEnv::Step(const void* action, OutputRow& row) {
  float a = *static_cast<const float*>(action);
  row.terminated = state_is_float32_ ? Integrate<float>(a) : Integrate<double>(a);
  // The reward uses the unclipped action, as gymnasium does.
  double reward = row.terminated ? kGoalReward : 0.0;
  reward -= PyPow2(static_cast<double>(a)) * 0.1;
  row.reward = static_cast<float>(reward);
  WriteObs(row);
}

void ContinuousMountainCarEnv::WriteObs(OutputRow& row) const {
  float* obs = row.Obs<float>();
  obs[0] = static_cast<float>(state_[0]);
  obs[1] = static_cast<float>(state_[1]);
  if (state_in_info_) WriteStateInfo(row, state_.data(), 2);
}

void ContinuousMountainCarEnv::Render(std::uint8_t* rgb) { DrawMountainCar(rgb, state_[0], kGoalPosition); }

void RegisterContinuousMountainCar(TaskRegistry& registry) {
  AddClassicTask<ContinuousMountainCarEnv>(
      registry, "MountainCarContinuous-v0", 999,
      {OptionDef::Float("goal_velocity", 0.0, "velocity the car must reach at the goal")});
}

}  // namespace envpool_core::classic
