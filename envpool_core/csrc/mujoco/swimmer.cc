// Swimmer-v4 / Swimmer-v5 (gymnasium/envs/mujoco/swimmer_v4.py, swimmer_v5.py).
#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

enum V4Info { kV4RewardFwd, kV4RewardCtrl, kV4XPosition, kV4YPosition, kV4DistanceFromOrigin,
              kV4XVelocity, kV4YVelocity, kV4ForwardReward, kV4NumInfo };
enum V5Info { kV5XPosition, kV5YPosition, kV5DistanceFromOrigin, kV5XVelocity, kV5YVelocity,
              kV5RewardForward, kV5RewardCtrl, kV5NumInfo };

class SwimmerEnv : public MujocoEnv {
 public:
  SwimmerEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
             bool v5)
      : MujocoEnv(spec, seed, std::move(model), v5),
        v5_(v5),
        forward_reward_weight_(spec.config.GetFloat("forward_reward_weight")),
        ctrl_cost_weight_(spec.config.GetFloat("ctrl_cost_weight")),
        reset_noise_scale_(spec.config.GetFloat("reset_noise_scale")),
        exclude_positions_(spec.config.GetBool("exclude_current_positions_from_observation")) {}

  bool Reset(OutputRow& row) override {
    ResetData();
    double s = reset_noise_scale_;
    for (int i = 0; i < model_->nq; ++i) qpos_[i] = model_->qpos0[i] + Uniform(-s, s);
    for (int i = 0; i < model_->nv; ++i) qvel_[i] = Uniform(-s, s);
    SetState(qpos_.data(), qvel_.data());
    WriteObs(row);
    ZeroInfos(row, v5_ ? static_cast<int>(kV5NumInfo) : static_cast<int>(kV4NumInfo));
    if (v5_) {
      SetInfo(row, kV5XPosition, data_->qpos[0]);
      SetInfo(row, kV5YPosition, data_->qpos[1]);
      SetInfo(row, kV5DistanceFromOrigin, Norm2(data_->qpos[0], data_->qpos[1]));
    }
    WriteResetState(row);
    return true;
  }

  void Step(const void* action_ptr, OutputRow& row) override {
    const auto* action = static_cast<const double*>(action_ptr);
    double x_before = data_->qpos[0], y_before = data_->qpos[1];
    DoSimulation(action);
    double x_after = data_->qpos[0], y_after = data_->qpos[1];
    double x_velocity = (x_after - x_before) / dt_;
    double y_velocity = (y_after - y_before) / dt_;
    WriteObs(row);
    double forward_reward = forward_reward_weight_ * x_velocity;
    double ctrl_cost = ctrl_cost_weight_ * SquaredNorm(action, model_->nu);
    row.reward = static_cast<float>(forward_reward - ctrl_cost);
    row.terminated = false;
    double distance = Norm2(x_after, y_after);
    if (v5_) {
      SetInfo(row, kV5XPosition, x_after);
      SetInfo(row, kV5YPosition, y_after);
      SetInfo(row, kV5DistanceFromOrigin, distance);
      SetInfo(row, kV5XVelocity, x_velocity);
      SetInfo(row, kV5YVelocity, y_velocity);
      SetInfo(row, kV5RewardForward, forward_reward);
      SetInfo(row, kV5RewardCtrl, -ctrl_cost);
    } else {
      SetInfo(row, kV4RewardFwd, forward_reward);
      SetInfo(row, kV4RewardCtrl, -ctrl_cost);
      SetInfo(row, kV4XPosition, x_after);
      SetInfo(row, kV4YPosition, y_after);
      SetInfo(row, kV4DistanceFromOrigin, distance);
      SetInfo(row, kV4XVelocity, x_velocity);
      SetInfo(row, kV4YVelocity, y_velocity);
      SetInfo(row, kV4ForwardReward, forward_reward);
    }
    WriteResetState(row);
  }

 private:
  void WriteObs(OutputRow& row) const {
    double* obs = row.Obs<double>();
    for (int i = exclude_positions_ ? 2 : 0; i < model_->nq; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < model_->nv; ++i) *obs++ = data_->qvel[i];
  }

  bool v5_;
  double forward_reward_weight_;
  double ctrl_cost_weight_;
  double reset_noise_scale_;
  bool exclude_positions_;
};

}  // namespace

void RegisterSwimmer(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def;
    def.id = v5 ? "Swimmer-v5" : "Swimmer-v4";
    def.max_episode_steps = 1000;
    def.xml_file = "swimmer.xml";
    def.xml_option = v5;
    def.frame_skip = 4;
    def.frame_skip_option = v5;
    def.options = {
        OptionDef::Float("forward_reward_weight", 1.0, "weight of the forward reward (x velocity)"),
        OptionDef::Float("ctrl_cost_weight", 1e-4, "weight of the control cost"),
        ResetNoiseScaleOption(0.1),
        ExcludePositionsOption(2),
    };
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      int skip = c.GetBool("exclude_current_positions_from_observation") ? 2 : 0;
      spec->obs.push_back(ObsSpec(m.nq + m.nv - skip));
      if (v5) {
        AddScalarInfos(spec, {"x_position", "y_position", "distance_from_origin", "x_velocity",
                              "y_velocity", "reward_forward", "reward_ctrl"});
      } else {
        AddScalarInfos(spec, {"reward_fwd", "reward_ctrl", "x_position", "y_position",
                              "distance_from_origin", "x_velocity", "y_velocity",
                              "forward_reward"});
      }
    };
    def.make_env = [v5](const EnvSpec& spec, std::uint64_t seed,
                        std::shared_ptr<const mjModel> model) -> std::unique_ptr<Env> {
      return std::make_unique<SwimmerEnv>(spec, seed, std::move(model), v5);
    };
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
