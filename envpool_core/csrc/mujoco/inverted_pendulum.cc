// InvertedPendulum-v4 / -v5 (gymnasium/envs/mujoco/inverted_pendulum_v4.py, _v5.py).
#include <cmath>
#include <string>

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

class InvertedPendulumEnv final : public MujocoEnv {
 public:
  InvertedPendulumEnv(const EnvSpec& spec, std::uint64_t seed,
                      std::shared_ptr<const mjModel> model, bool v5)
      : MujocoEnv(spec, seed, std::move(model), v5),
        reset_noise_scale_(spec.config.GetFloat("reset_noise_scale")),
        angle_min_(spec.config.GetFloat("healthy_z_min")),
        angle_max_(spec.config.GetFloat("healthy_z_max")) {}

 private:
  void ResetModel(OutputRow& row) override {
    SetNoisyInitState(reset_noise_scale_, QvelNoise::kUniform);
    WriteObs(row);
    if (v5_) SetInfo(row, 0, 0.0);
  }

  void StepModel(const double* action, OutputRow& row) override {
    DoSimulation(action);
    WriteObs(row);
    bool finite = StateIsFinite();
    double angle = data_->qpos[1];
    bool terminated = !finite || angle < angle_min_ || angle > angle_max_;
    double reward = v5_ ? (terminated ? 0.0 : 1.0) : 1.0;
    row.reward = static_cast<float>(reward);
    row.terminated = terminated;
    if (v5_) SetInfo(row, 0, reward);
  }

  void WriteObs(OutputRow& row) const { WriteStateObs(row.Obs<double>(), 0); }

  double reset_noise_scale_;
  double angle_min_, angle_max_;
};

}  // namespace

void RegisterInvertedPendulum(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = VersionedTaskDef("InvertedPendulum", v5, 1000, "inverted_pendulum.xml", 2);
    // gymnasium's v4 has no options: these are v5's and EnvPool's (its names,
    // though the bounds are on the pole's angle, not a height).
    def.options = {
        ResetNoiseScaleOption(0.01),
        OptionDef::Float("healthy_z_min", -0.2, "the episode ends when the pole angle is < this"),
        OptionDef::Float("healthy_z_max", 0.2, "the episode ends when the pole angle is > this"),
    };
    RefuseVersionSwitch(&def, "reward_if_not_terminated", "False", "True");
    def.refused["healthy_reward"] =
        "EnvPool takes it and does not use it; the reward is 1 per step (-v5: 0 on the step "
        "that terminates)";
    def.make_spec = [v5](const Config&, const mjModel& m, EnvSpec* spec) {
      spec->obs.push_back(ObsSpec(m.nq + m.nv));
      if (v5) AddScalarInfos(spec, {"reward_survive"});
    };
    def.make_env = EnvFactory<InvertedPendulumEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
