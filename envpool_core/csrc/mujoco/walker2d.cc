// Walker2d-v4 / Walker2d-v5 (gymnasium/envs/mujoco/walker2d_v4.py, walker2d_v5.py).
#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

enum V5Info { kXPosition, kZDistance, kXVelocity, kRewardForward, kRewardCtrl, kRewardSurvive,
              kV5NumInfo };
constexpr int kV4NumInfo = 2;  // x_position, x_velocity

class Walker2dEnv : public MujocoEnv {
 public:
  Walker2dEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model, bool v5)
      : MujocoEnv(spec, seed, std::move(model), v5),
        v5_(v5),
        forward_reward_weight_(spec.config.GetFloat("forward_reward_weight")),
        ctrl_cost_weight_(spec.config.GetFloat("ctrl_cost_weight")),
        healthy_reward_(spec.config.GetFloat("healthy_reward")),
        terminate_when_unhealthy_(spec.config.GetBool("terminate_when_unhealthy")),
        healthy_z_min_(spec.config.GetFloat("healthy_z_min")),
        healthy_z_max_(spec.config.GetFloat("healthy_z_max")),
        healthy_angle_min_(spec.config.GetFloat("healthy_angle_min")),
        healthy_angle_max_(spec.config.GetFloat("healthy_angle_max")),
        reset_noise_scale_(spec.config.GetFloat("reset_noise_scale")),
        exclude_positions_(spec.config.GetBool("exclude_current_positions_from_observation")) {}

  bool Reset(OutputRow& row) override {
    ResetData();
    double s = reset_noise_scale_;
    for (int i = 0; i < model_->nq; ++i) qpos_[i] = model_->qpos0[i] + Uniform(-s, s);
    for (int i = 0; i < model_->nv; ++i) qvel_[i] = Uniform(-s, s);
    SetState(qpos_.data(), qvel_.data());
    WriteObs(row);
    ZeroInfos(row, v5_ ? kV5NumInfo : kV4NumInfo);
    if (v5_) {
      SetInfo(row, kXPosition, data_->qpos[0]);
      SetInfo(row, kZDistance, data_->qpos[1] - model_->qpos0[1]);
    }
    WriteResetState(row);
    return true;
  }

  void Step(const void* action_ptr, OutputRow& row) override {
    const auto* action = static_cast<const double*>(action_ptr);
    double x_before = data_->qpos[0];
    DoSimulation(action);
    double x_after = data_->qpos[0];
    double x_velocity = (x_after - x_before) / dt_;
    WriteObs(row);
    bool healthy = IsHealthy();
    double ctrl_cost = ctrl_cost_weight_ * SquaredNorm(action, model_->nu);
    double forward_reward = forward_reward_weight_ * x_velocity;
    bool survive = v5_ ? healthy : (healthy || terminate_when_unhealthy_);
    double healthy_reward = survive ? healthy_reward_ : 0.0;
    row.reward = static_cast<float>((forward_reward + healthy_reward) - ctrl_cost);
    row.terminated = !healthy && terminate_when_unhealthy_;
    if (v5_) {
      SetInfo(row, kXPosition, x_after);
      SetInfo(row, kZDistance, data_->qpos[1] - model_->qpos0[1]);
      SetInfo(row, kXVelocity, x_velocity);
      SetInfo(row, kRewardForward, forward_reward);
      SetInfo(row, kRewardCtrl, -ctrl_cost);
      SetInfo(row, kRewardSurvive, healthy_reward);
    } else {
      SetInfo(row, 0, x_after);
      SetInfo(row, 1, x_velocity);
    }
    WriteResetState(row);
  }

 private:
  bool IsHealthy() const {
    double z = data_->qpos[1], angle = data_->qpos[2];
    return healthy_z_min_ < z && z < healthy_z_max_ && healthy_angle_min_ < angle &&
           angle < healthy_angle_max_;
  }

  void WriteObs(OutputRow& row) const {
    double* obs = row.Obs<double>();
    for (int i = exclude_positions_ ? 1 : 0; i < model_->nq; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < model_->nv; ++i) *obs++ = Clip(data_->qvel[i], -10.0, 10.0);
  }

  bool v5_;
  double forward_reward_weight_;
  double ctrl_cost_weight_;
  double healthy_reward_;
  bool terminate_when_unhealthy_;
  double healthy_z_min_, healthy_z_max_;
  double healthy_angle_min_, healthy_angle_max_;
  double reset_noise_scale_;
  bool exclude_positions_;
};

}  // namespace

void RegisterWalker2d(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def;
    def.id = v5 ? "Walker2d-v5" : "Walker2d-v4";
    def.max_episode_steps = 1000;
    def.xml_file = v5 ? "walker2d_v5.xml" : "walker2d.xml";
    def.xml_option = v5;
    def.frame_skip = 4;
    def.frame_skip_option = v5;
    def.options = {
        OptionDef::Float("forward_reward_weight", 1.0, "weight of the forward reward (x velocity)"),
        OptionDef::Float("ctrl_cost_weight", 1e-3, "weight of the control cost"),
        OptionDef::Float("healthy_reward", 1.0, "reward per step for being healthy"),
        TerminateWhenUnhealthyOption(),
        OptionDef::Float("healthy_z_min", 0.8, "healthy while the torso z is > this"),
        OptionDef::Float("healthy_z_max", 2.0, "healthy while the torso z is < this"),
        OptionDef::Float("healthy_angle_min", -1.0, "healthy while the torso angle is > this"),
        OptionDef::Float("healthy_angle_max", 1.0, "healthy while the torso angle is < this"),
        ResetNoiseScaleOption(5e-3),
        ExcludePositionsOption(1),
    };
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      int skip = c.GetBool("exclude_current_positions_from_observation") ? 1 : 0;
      spec->obs.push_back(ObsSpec(m.nq + m.nv - skip));
      if (v5) {
        AddScalarInfos(spec, {"x_position", "z_distance_from_origin", "x_velocity",
                              "reward_forward", "reward_ctrl", "reward_survive"});
      } else {
        AddScalarInfos(spec, {"x_position", "x_velocity"});
      }
    };
    def.make_env = [v5](const EnvSpec& spec, std::uint64_t seed,
                        std::shared_ptr<const mjModel> model) -> std::unique_ptr<Env> {
      return std::make_unique<Walker2dEnv>(spec, seed, std::move(model), v5);
    };
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
