// The hopper domain (dm_control/suite/hopper.py): stand and hop.
#include <cmath>

#include "dm_control/randomizers.h"
#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

constexpr double kStandHeight = 0.6;
constexpr double kHopSpeed = 2.0;

class HopperEnv final : public SuiteEnv {
 public:
  HopperEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, bool hopping)
      : SuiteEnv(spec, seed, std::move(model)),
        hopping_(hopping),
        torso_(mujoco::NameId(model_, mjOBJ_BODY, "torso")),
        foot_(mujoco::NameId(model_, mjOBJ_BODY, "foot")),
        speed_(SensorAdr("torso_subtreelinvel")),
        toe_(SensorAdr("touch_toe")),
        heel_(SensorAdr("touch_heel")) {}

 private:
  int SensorAdr(const char* name) const {
    return model_->sensor_adr[mujoco::NameId(model_, mjOBJ_SENSOR, name)];
  }

  void InitializeEpisode() override {
    RandomizeLimitedAndRotationalJoints(model_, data_, &random_);
  }

  void WriteObservation(OutputRow& row) override {
    mju_copy(row.Obs<double>(0), data_->qpos + 1, model_->nq - 1);
    mju_copy(row.Obs<double>(1), data_->qvel, model_->nv);
    double* touch = row.Obs<double>(2);
    touch[0] = std::log1p(data_->sensordata[toe_]);
    touch[1] = std::log1p(data_->sensordata[heel_]);
  }

  double Reward() override {
    // The height of the torso's centre of mass over the foot's.
    double height = data_->xipos[3 * torso_ + 2] - data_->xipos[3 * foot_ + 2];
    double standing = Tolerance(height, kStandHeight, 2.0);
    if (hopping_) {
      double hopping = Tolerance(data_->sensordata[speed_], kHopSpeed, kInf, kHopSpeed / 2,
                                 Sigmoid::kLinear, 0.5);
      return standing * hopping;
    }
    double small_control = 0.0;
    for (int i = 0; i < model_->nu; ++i) {
      small_control += Tolerance(data_->ctrl[i], 0.0, 0.0, 1.0, Sigmoid::kQuadratic, 0.0);
    }
    small_control = (small_control / model_->nu + 4) / 5;
    return standing * small_control;
  }

  bool hopping_;
  int torso_, foot_;
  int speed_, toe_, heel_;
};

}  // namespace

void RegisterHopper(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.02 s over the model's 0.005 s.
  for (auto [name, hopping] : {std::pair{"stand", false}, std::pair{"hop", true}}) {
    AddSuiteTask(registry, suite_dir,
                 {"hopper", name, 4, {{"position", {6}}, {"velocity", {7}}, {"touch", {2}}},
                  SuiteEnvFactory<HopperEnv>(hopping)});
  }
}

}  // namespace envpool_core::dm_control
