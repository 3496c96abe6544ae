// HalfCheetah-v4 / HalfCheetah-v5 (gymnasium/envs/mujoco/half_cheetah_v4.py, _v5.py).
#include "mujoco/locomotion_env.h"

namespace envpool_core::mujoco {

namespace {

enum Info { kXPosition, kXVelocity, kRewardForward, kRewardCtrl, kNumInfo };

class HalfCheetahEnv final : public LocomotionEnv {
 public:
  HalfCheetahEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
                 bool v5)
      : LocomotionEnv(spec, seed, std::move(model), v5, /*num_excluded=*/1) {}

 private:
  void ResetModel(OutputRow& row) override {
    SetNoisyInitState(reset_noise_scale_, QvelNoise::kNormal);
    WriteStateObs(row.Obs<double>(), obs_qpos_begin_);
    ZeroInfos(row, kNumInfo);
    if (v5_) SetInfo(row, kXPosition, data_->qpos[0]);
  }

  void StepModel(const double* action, OutputRow& row) override {
    Motion motion = SimulateTracking(action);
    WriteStateObs(row.Obs<double>(), obs_qpos_begin_);
    double ctrl_cost = ControlCost(action);
    double forward_reward = ForwardReward(motion.x_velocity);
    row.reward = static_cast<float>(forward_reward - ctrl_cost);
    row.terminated = false;
    SetInfo(row, kXPosition, motion.x);
    SetInfo(row, kXVelocity, motion.x_velocity);
    SetInfo(row, kRewardForward, forward_reward);
    SetInfo(row, kRewardCtrl, -ctrl_cost);
  }
};

}  // namespace

void RegisterHalfCheetah(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = VersionedTaskDef("HalfCheetah", v5, 1000, "half_cheetah.xml", 5);
    def.options = {ForwardRewardWeightOption(1.0), CtrlCostWeightOption(0.1),
                   ResetNoiseScaleOption(0.1), ExcludePositionsOption(1)};
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      spec->obs.push_back(ObsSpec(LocomotionObsSize(c, m, 1)));
      AddScalarInfos(spec, {"x_position", "x_velocity", v5 ? "reward_forward" : "reward_run",
                            "reward_ctrl"});
    };
    def.make_env = EnvFactory<HalfCheetahEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
