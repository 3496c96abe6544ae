// InvertedPendulum-v4 / -v5 (gymnasium/envs/mujoco/inverted_pendulum_v4.py, _v5.py).
#include <cmath>

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

class InvertedPendulumEnv final : public MujocoEnv {
 public:
  InvertedPendulumEnv(const EnvSpec& spec, std::uint64_t seed,
                      std::shared_ptr<const mjModel> model, bool v5)
      : MujocoEnv(spec, seed, std::move(model), v5),
        reset_noise_scale_(v5 ? spec.config.GetFloat("reset_noise_scale") : 0.01) {}

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
    bool terminated = !finite || std::abs(data_->qpos[1]) > 0.2;
    double reward = v5_ ? (terminated ? 0.0 : 1.0) : 1.0;
    row.reward = static_cast<float>(reward);
    row.terminated = terminated;
    if (v5_) SetInfo(row, 0, reward);
  }

  void WriteObs(OutputRow& row) const { WriteStateObs(row.Obs<double>(), 0); }

  double reset_noise_scale_;
};

}  // namespace

void RegisterInvertedPendulum(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = VersionedTaskDef("InvertedPendulum", v5, 1000, "inverted_pendulum.xml", 2);
    if (v5) def.options = {ResetNoiseScaleOption(0.01)};
    def.make_spec = [v5](const Config&, const mjModel& m, EnvSpec* spec) {
      spec->obs.push_back(ObsSpec(m.nq + m.nv));
      if (v5) AddScalarInfos(spec, {"reward_survive"});
    };
    def.make_env = EnvFactory<InvertedPendulumEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
