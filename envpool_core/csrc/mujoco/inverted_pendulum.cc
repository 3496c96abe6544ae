// InvertedPendulum-v4 / -v5 (gymnasium/envs/mujoco/inverted_pendulum_v4.py, _v5.py).
#include <cmath>

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

class InvertedPendulumEnv : public MujocoEnv {
 public:
  InvertedPendulumEnv(const EnvSpec& spec, std::uint64_t seed,
                      std::shared_ptr<const mjModel> model, bool v5)
      : MujocoEnv(spec, seed, std::move(model), v5),
        v5_(v5),
        reset_noise_scale_(v5 ? spec.config.GetFloat("reset_noise_scale") : 0.01) {}

  bool Reset(OutputRow& row) override {
    ResetData();
    double s = reset_noise_scale_;
    for (int i = 0; i < model_->nq; ++i) qpos_[i] = model_->qpos0[i] + Uniform(-s, s);
    for (int i = 0; i < model_->nv; ++i) qvel_[i] = Uniform(-s, s);
    SetState(qpos_.data(), qvel_.data());
    WriteObs(row);
    if (v5_) SetInfo(row, 0, 0.0);
    WriteResetState(row);
    return true;
  }

  void Step(const void* action_ptr, OutputRow& row) override {
    DoSimulation(static_cast<const double*>(action_ptr));
    WriteObs(row);
    bool finite = StateIsFinite();
    bool terminated = !finite || std::abs(data_->qpos[1]) > 0.2;
    double reward = v5_ ? (terminated ? 0.0 : 1.0) : 1.0;
    row.reward = static_cast<float>(reward);
    row.terminated = terminated;
    if (v5_) SetInfo(row, 0, reward);
    WriteResetState(row);
  }

 private:
  void WriteObs(OutputRow& row) const {
    double* obs = row.Obs<double>();
    for (int i = 0; i < model_->nq; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < model_->nv; ++i) *obs++ = data_->qvel[i];
  }

  bool v5_;
  double reset_noise_scale_;
};

}  // namespace

void RegisterInvertedPendulum(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def;
    def.id = v5 ? "InvertedPendulum-v5" : "InvertedPendulum-v4";
    def.max_episode_steps = 1000;
    def.xml_file = "inverted_pendulum.xml";
    def.xml_option = v5;
    def.frame_skip = 2;
    def.frame_skip_option = v5;
    if (v5) def.options = {ResetNoiseScaleOption(0.01)};
    def.make_spec = [v5](const Config&, const mjModel& m, EnvSpec* spec) {
      spec->obs.push_back(ObsSpec(m.nq + m.nv));
      if (v5) AddScalarInfos(spec, {"reward_survive"});
    };
    def.make_env = [v5](const EnvSpec& spec, std::uint64_t seed,
                        std::shared_ptr<const mjModel> model) -> std::unique_ptr<Env> {
      return std::make_unique<InvertedPendulumEnv>(spec, seed, std::move(model), v5);
    };
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
