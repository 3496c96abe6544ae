// HalfCheetah-v4 / HalfCheetah-v5 (gymnasium/envs/mujoco/half_cheetah_v4.py, _v5.py).
#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

enum Info { kXPosition, kXVelocity, kRewardForward, kRewardCtrl, kNumInfo };

class HalfCheetahEnv : public MujocoEnv {
 public:
  HalfCheetahEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
                 bool v5)
      : MujocoEnv(spec, seed, std::move(model), v5),
        v5_(v5),
        forward_reward_weight_(spec.config.GetFloat("forward_reward_weight")),
        ctrl_cost_weight_(spec.config.GetFloat("ctrl_cost_weight")),
        reset_noise_scale_(spec.config.GetFloat("reset_noise_scale")),
        exclude_positions_(spec.config.GetBool("exclude_current_positions_from_observation")) {}

  bool Reset(OutputRow& row) override {
    ResetData();
    for (int i = 0; i < model_->nq; ++i) {
      qpos_[i] = model_->qpos0[i] + Uniform(-reset_noise_scale_, reset_noise_scale_);
    }
    for (int i = 0; i < model_->nv; ++i) qvel_[i] = reset_noise_scale_ * StandardNormal();
    SetState(qpos_.data(), qvel_.data());
    WriteObs(row);
    ZeroInfos(row, kNumInfo);
    if (v5_) SetInfo(row, kXPosition, data_->qpos[0]);
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
    double ctrl_cost = ctrl_cost_weight_ * SquaredNorm(action, model_->nu);
    double forward_reward = forward_reward_weight_ * x_velocity;
    row.reward = static_cast<float>(forward_reward - ctrl_cost);
    row.terminated = false;
    SetInfo(row, kXPosition, x_after);
    SetInfo(row, kXVelocity, x_velocity);
    SetInfo(row, kRewardForward, forward_reward);
    SetInfo(row, kRewardCtrl, -ctrl_cost);
    WriteResetState(row);
  }

 private:
  void WriteObs(OutputRow& row) const {
    double* obs = row.Obs<double>();
    for (int i = exclude_positions_ ? 1 : 0; i < model_->nq; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < model_->nv; ++i) *obs++ = data_->qvel[i];
  }

  bool v5_;
  double forward_reward_weight_;
  double ctrl_cost_weight_;
  double reset_noise_scale_;
  bool exclude_positions_;
};

}  // namespace

void RegisterHalfCheetah(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def;
    def.id = v5 ? "HalfCheetah-v5" : "HalfCheetah-v4";
    def.max_episode_steps = 1000;
    def.xml_file = "half_cheetah.xml";
    def.xml_option = v5;
    def.frame_skip = 5;
    def.frame_skip_option = v5;
    def.options = {
        OptionDef::Float("forward_reward_weight", 1.0, "weight of the forward reward (x velocity)"),
        OptionDef::Float("ctrl_cost_weight", 0.1, "weight of the control cost"),
        ResetNoiseScaleOption(0.1),
        ExcludePositionsOption(1),
    };
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      int skip = c.GetBool("exclude_current_positions_from_observation") ? 1 : 0;
      spec->obs.push_back(ObsSpec(m.nq + m.nv - skip));
      AddScalarInfos(spec, {"x_position", "x_velocity", v5 ? "reward_forward" : "reward_run",
                            "reward_ctrl"});
    };
    def.make_env = [v5](const EnvSpec& spec, std::uint64_t seed,
                        std::shared_ptr<const mjModel> model) -> std::unique_ptr<Env> {
      return std::make_unique<HalfCheetahEnv>(spec, seed, std::move(model), v5);
    };
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
