#include "mujoco/planar_walker.h"

#include <utility>

namespace envpool_core::mujoco {

namespace {

enum V5Info { kXPosition, kZDistance, kXVelocity, kRewardForward, kRewardCtrl, kRewardSurvive,
              kV5NumInfo };
constexpr int kV4NumInfo = 2;  // x_position, x_velocity

}  // namespace

PlanarWalkerEnv::PlanarWalkerEnv(const EnvSpec& spec, std::uint64_t seed,
                                 std::shared_ptr<const mjModel> model, bool v5)
    : LocomotionEnv(spec, seed, std::move(model), v5, /*num_excluded=*/1),
      health_(spec.config, v5),
      healthy_z_min_(spec.config.GetFloat("healthy_z_min")),
      healthy_z_max_(spec.config.GetFloat("healthy_z_max")),
      healthy_angle_min_(spec.config.GetFloat("healthy_angle_min")),
      healthy_angle_max_(spec.config.GetFloat("healthy_angle_max")),
      velocity_min_(spec.config.GetFloat("velocity_min")),
      velocity_max_(spec.config.GetFloat("velocity_max")) {}

bool PlanarWalkerEnv::IsHealthy() const {
  double z = data_->qpos[1], angle = data_->qpos[2];
  return healthy_z_min_ < z && z < healthy_z_max_ && healthy_angle_min_ < angle &&
         angle < healthy_angle_max_;
}

void PlanarWalkerEnv::ResetModel(OutputRow& row) {
  SetNoisyInitState(reset_noise_scale_, QvelNoise::kUniform);
  WriteObs(row);
  ZeroInfos(row, v5_ ? kV5NumInfo : kV4NumInfo);
  if (v5_) {
    SetInfo(row, kXPosition, data_->qpos[0]);
    SetInfo(row, kZDistance, data_->qpos[1] - model_->qpos0[1]);
  }
}

void PlanarWalkerEnv::StepModel(const double* action, OutputRow& row) {
  Motion motion = SimulateTracking(action);
  WriteObs(row);
  bool healthy = IsHealthy();
  double ctrl_cost = ControlCost(action);
  double forward_reward = ForwardReward(motion.x_velocity);
  double healthy_reward = health_.Reward(healthy);
  row.reward = static_cast<float>((forward_reward + healthy_reward) - ctrl_cost);
  row.terminated = health_.Terminated(healthy);
  if (v5_) {
    SetInfo(row, kXPosition, motion.x);
    SetInfo(row, kZDistance, data_->qpos[1] - model_->qpos0[1]);
    SetInfo(row, kXVelocity, motion.x_velocity);
    SetInfo(row, kRewardForward, forward_reward);
    SetInfo(row, kRewardCtrl, -ctrl_cost);
    SetInfo(row, kRewardSurvive, healthy_reward);
  } else {
    SetInfo(row, 0, motion.x);
    SetInfo(row, 1, motion.x_velocity);
  }
}

void PlanarWalkerEnv::WriteObs(OutputRow& row) const {
  WriteStateObs(row.Obs<double>(), obs_qpos_begin_, velocity_min_, velocity_max_);
}

std::vector<OptionDef> TorsoRangeOptions(double z_min, double z_max, double angle_min,
                                         double angle_max) {
  std::vector<OptionDef> options = StrictHealthyZOptions(z_min, z_max);
  options.push_back(
      OptionDef::Float("healthy_angle_min", angle_min, "healthy while the torso angle is > this"));
  options.push_back(
      OptionDef::Float("healthy_angle_max", angle_max, "healthy while the torso angle is < this"));
  return options;
}

MujocoTaskDef PlanarWalkerTaskDef(const std::string& family, bool v5, std::string xml_file,
                                  std::vector<OptionDef> health_options) {
  MujocoTaskDef def = VersionedTaskDef(family, v5, 1000, std::move(xml_file), 4);
  def.options = {ForwardRewardWeightOption(1.0), CtrlCostWeightOption(1e-3),
                 HealthyRewardOption(1.0), TerminateWhenUnhealthyOption()};
  for (auto& o : health_options) def.options.push_back(std::move(o));
  def.options.push_back(ResetNoiseScaleOption(5e-3));
  def.options.push_back(ExcludePositionsOption(1));
  // gymnasium clips the observed velocities of both walkers to [-10, 10]; EnvPool's
  // options (and names) for that range.
  def.options.push_back(OptionDef::Float("velocity_min", -10.0,
                                         "the observed velocities (qvel) are clipped to >= this"));
  def.options.push_back(OptionDef::Float("velocity_max", 10.0,
                                         "the observed velocities (qvel) are clipped to <= this"));
  RefuseVersionSwitch(&def, "legacy_healthy_reward", "True", "False");
  def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
    spec->obs.push_back(ObsSpec(LocomotionObsSize(c, m, 1)));
    if (v5) {
      AddScalarInfos(spec, {"x_position", "z_distance_from_origin", "x_velocity",
                            "reward_forward", "reward_ctrl", "reward_survive"});
    } else {
      AddScalarInfos(spec, {"x_position", "x_velocity"});
    }
  };
  return def;
}

}  // namespace envpool_core::mujoco
