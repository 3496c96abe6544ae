// Swimmer-v4 / Swimmer-v5 (gymnasium/envs/mujoco/swimmer_v4.py, swimmer_v5.py).
#include "mujoco/locomotion_env.h"

namespace envpool_core::mujoco {

namespace {

// x_position, y_position, distance_from_origin, x_velocity and y_velocity
// (SetXYInfos) start at kV4XY / kV5XY.
enum V4Info { kV4RewardFwd, kV4RewardCtrl, kV4XY, kV4ForwardReward = kV4XY + 5, kV4NumInfo };
enum V5Info { kV5XY, kV5RewardForward = kV5XY + 5, kV5RewardCtrl, kV5NumInfo };

class SwimmerEnv final : public LocomotionEnv {
 public:
  SwimmerEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
             bool v5)
      : LocomotionEnv(spec, seed, std::move(model), v5, /*num_excluded=*/2) {}

 private:
  void ResetModel(OutputRow& row) override {
    SetNoisyInitState(reset_noise_scale_, QvelNoise::kUniform);
    WriteStateObs(row.Obs<double>(), obs_qpos_begin_);
    ZeroInfos(row, v5_ ? static_cast<int>(kV5NumInfo) : static_cast<int>(kV4NumInfo));
    if (v5_) SetXYInfos(row, kV5XY, data_->qpos[0], data_->qpos[1], 0.0, 0.0);
  }

  void StepModel(const double* action, OutputRow& row) override {
    Motion m = SimulateTracking(action);
    WriteStateObs(row.Obs<double>(), obs_qpos_begin_);
    double forward_reward = ForwardReward(m.x_velocity);
    double ctrl_cost = ControlCost(action);
    row.reward = static_cast<float>(forward_reward - ctrl_cost);
    row.terminated = false;
    if (v5_) {
      SetXYInfos(row, kV5XY, m.x, m.y, m.x_velocity, m.y_velocity);
      SetInfo(row, kV5RewardForward, forward_reward);
      SetInfo(row, kV5RewardCtrl, -ctrl_cost);
    } else {
      SetInfo(row, kV4RewardFwd, forward_reward);
      SetInfo(row, kV4RewardCtrl, -ctrl_cost);
      SetXYInfos(row, kV4XY, m.x, m.y, m.x_velocity, m.y_velocity);
      SetInfo(row, kV4ForwardReward, forward_reward);
    }
  }
};

}  // namespace

void RegisterSwimmer(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = VersionedTaskDef("Swimmer", v5, 1000, "swimmer.xml", 4);
    def.options = {ForwardRewardWeightOption(1.0), CtrlCostWeightOption(1e-4),
                   ResetNoiseScaleOption(0.1), ExcludePositionsOption(2)};
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      spec->obs.push_back(ObsSpec(LocomotionObsSize(c, m, 2)));
      if (v5) {
        AddScalarInfos(spec, {"x_position", "y_position", "distance_from_origin", "x_velocity",
                              "y_velocity", "reward_forward", "reward_ctrl"});
      } else {
        AddScalarInfos(spec, {"reward_fwd", "reward_ctrl", "x_position", "y_position",
                              "distance_from_origin", "x_velocity", "y_velocity",
                              "forward_reward"});
      }
    };
    def.make_env = EnvFactory<SwimmerEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
