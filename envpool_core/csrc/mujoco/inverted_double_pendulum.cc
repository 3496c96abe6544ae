// InvertedDoublePendulum-v4 / -v5 (gymnasium/envs/mujoco/inverted_double_pendulum_v4.py, _v5.py).
#include <cmath>

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

enum V5Info { kRewardSurvive, kDistancePenalty, kVelocityPenalty, kV5NumInfo };

class InvertedDoublePendulumEnv final : public MujocoEnv {
 public:
  InvertedDoublePendulumEnv(const EnvSpec& spec, std::uint64_t seed,
                            std::shared_ptr<const mjModel> model, bool v5)
      : MujocoEnv(spec, seed, std::move(model), v5),
        healthy_reward_(spec.config.GetFloat("healthy_reward")),
        reset_noise_scale_(spec.config.GetFloat("reset_noise_scale")),
        healthy_y_(spec.config.GetFloat("healthy_z_max")),
        observation_min_(spec.config.GetFloat("observation_min")),
        observation_max_(spec.config.GetFloat("observation_max")) {}

 private:
  void ResetModel(OutputRow& row) override {
    SetNoisyInitState(reset_noise_scale_, QvelNoise::kNormal);
    WriteObs(row);
    if (v5_) ZeroInfos(row, kV5NumInfo);
  }

  void StepModel(const double* action, OutputRow& row) override {
    DoSimulation(action);
    double x = data_->site_xpos[0], y = data_->site_xpos[2];
    WriteObs(row);
    bool terminated = y <= healthy_y_;
    double dist_penalty = 0.01 * (x * x) + (y - 2) * (y - 2);
    double v1 = data_->qvel[1], v2 = data_->qvel[2];
    double vel_penalty = 0.001 * (v1 * v1) + 0.005 * (v2 * v2);
    double alive_bonus = v5_ && terminated ? 0.0 : healthy_reward_;
    row.reward = static_cast<float>(alive_bonus - dist_penalty - vel_penalty);
    row.terminated = terminated;
    if (v5_) {
      SetInfo(row, kRewardSurvive, alive_bonus);
      SetInfo(row, kDistancePenalty, -dist_penalty);
      SetInfo(row, kVelocityPenalty, -vel_penalty);
    }
  }

  void WriteObs(OutputRow& row) const {
    double* obs = row.Obs<double>();
    *obs++ = data_->qpos[0];
    for (int i = 1; i < model_->nq; ++i) *obs++ = std::sin(data_->qpos[i]);
    for (int i = 1; i < model_->nq; ++i) *obs++ = std::cos(data_->qpos[i]);
    for (int i = 0; i < model_->nv; ++i) {
      *obs++ = Clip(data_->qvel[i], observation_min_, observation_max_);
    }
    for (int i = 0; i < (v5_ ? 1 : model_->nv); ++i) {
      *obs++ = Clip(data_->qfrc_constraint[i], observation_min_, observation_max_);
    }
  }

  double healthy_reward_;
  double reset_noise_scale_;
  double healthy_y_;  // the episode ends when the tip's height y is <= this
  double observation_min_, observation_max_;  // clip of the observed qvel and constraint forces
};

}  // namespace

void RegisterInvertedDoublePendulum(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def =
        VersionedTaskDef("InvertedDoublePendulum", v5, 1000, "inverted_double_pendulum.xml", 5);
    // gymnasium's v4 has no options: these are v5's, and EnvPool's for both.
    def.options = {
        HealthyRewardOption(10.0, "reward per step while the tip is above healthy_z_max"),
        ResetNoiseScaleOption(0.1),
        OptionDef::Float("healthy_z_max", 1.0, "the episode ends when the tip's y is <= this"),
        OptionDef::Float("observation_min", -10.0,
                         "the observed velocities and constraint forces are clipped to >= this"),
        OptionDef::Float("observation_max", 10.0,
                         "the observed velocities and constraint forces are clipped to <= this"),
    };
    RefuseVersionSwitch(&def, "reward_if_not_terminated", "False", "True");
    RefuseVersionSwitch(&def, "constraint_obs_dim", "3", "1");
    def.make_spec = [v5](const Config&, const mjModel& m, EnvSpec* spec) {
      spec->obs.push_back(ObsSpec(1 + 2 * (m.nq - 1) + m.nv + (v5 ? 1 : m.nv)));
      if (v5) AddScalarInfos(spec, {"reward_survive", "distance_penalty", "velocity_penalty"});
    };
    def.make_env = EnvFactory<InvertedDoublePendulumEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
