// The cheetah domain (dm_control/suite/cheetah.py): run.
#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

constexpr double kRunSpeed = 10.0;

class CheetahEnv final : public SuiteEnv {
 public:
  CheetahEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model)
      : SuiteEnv(spec, seed, std::move(model)),
        speed_sensor_(m_sensor_adr("torso_subtreelinvel")) {}

 private:
  int m_sensor_adr(const char* name) const {
    return model_->sensor_adr[mujoco::NameId(model_, mjOBJ_SENSOR, name)];
  }

  void InitializeEpisode() override {
    // Limited joints uniform in their range, then 200 steps to settle (at rest,
    // without control), with the clock restarted.
    for (int j = 0; j < model_->njnt; ++j) {
      if (model_->jnt_limited[j]) {
        data_->qpos[model_->jnt_qposadr[j]] =
            random_.Uniform(model_->jnt_range[2 * j], model_->jnt_range[2 * j + 1]);
      }
    }
    RecordStartState();  // the drawn start, before it settles
    PhysicsStep(200);
    data_->time = 0.0;
  }

  void WriteObservation(OutputRow& row) override {
    mju_copy(row.Obs<double>(0), data_->qpos + 1, model_->nq - 1);  // without the x position
    mju_copy(row.Obs<double>(1), data_->qvel, model_->nv);
  }

  double Reward() override {
    double speed = data_->sensordata[speed_sensor_];
    return Tolerance(speed, kRunSpeed, kInf, kRunSpeed, Sigmoid::kLinear, 0.0);
  }

  int speed_sensor_;
};

}  // namespace

void RegisterCheetah(TaskRegistry& registry, const std::string& suite_dir) {
  AddSuiteTask(registry, suite_dir,
               {"cheetah", "run", 1, {{"position", {8}}, {"velocity", {9}}},
                SuiteEnvFactory<CheetahEnv>()});
}

}  // namespace envpool_core::dm_control
