// The walker domain (dm_control/suite/walker.py): stand, walk and run, the
// planar walker rewarded for standing tall and upright and, but on stand, for
// its horizontal speed.
#include "dm_control/randomizers.h"
#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

constexpr double kStandHeight = 1.2;

class WalkerEnv final : public SuiteEnv {
 public:
  WalkerEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, double move_speed)
      : SuiteEnv(spec, seed, std::move(model)),
        move_speed_(move_speed),
        torso_(mujoco::NameId(model_, mjOBJ_BODY, "torso")),
        velocity_sensor_(
            model_->sensor_adr[mujoco::NameId(model_, mjOBJ_SENSOR, "torso_subtreelinvel")]) {}

 private:
  void InitializeEpisode() override {
    RandomizeLimitedAndRotationalJoints(model_, data_, &random_);
  }

  void WriteObservation(OutputRow& row) override {
    // The xx and xz entries of every body's orientation but the world's.
    double* orientations = row.Obs<double>(0);
    for (int b = 1; b < model_->nbody; ++b) {
      *orientations++ = data_->xmat[9 * b];
      *orientations++ = data_->xmat[9 * b + 2];
    }
    *row.Obs<double>(1) = TorsoHeight();
    mju_copy(row.Obs<double>(2), data_->qvel, model_->nv);
  }

  double Reward() override {
    double standing = Tolerance(TorsoHeight(), kStandHeight, kInf, kStandHeight / 2);
    double upright = (1 + data_->xmat[9 * torso_ + 8]) / 2;
    double stand_reward = (3 * standing + upright) / 4;
    if (move_speed_ == 0.0) return stand_reward;
    double move_reward = Tolerance(data_->sensordata[velocity_sensor_], move_speed_, kInf,
                                   move_speed_ / 2, Sigmoid::kLinear, 0.5);
    return stand_reward * (5 * move_reward + 1) / 6;
  }

  double TorsoHeight() const { return data_->xpos[3 * torso_ + 2]; }

  double move_speed_;
  int torso_;
  int velocity_sensor_;
};

}  // namespace

void RegisterWalker(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.025 s over the model's 0.0025 s.
  struct Task {
    const char* name;
    double move_speed;
  };
  for (Task t : {Task{"stand", 0.0}, Task{"walk", 1.0}, Task{"run", 8.0}}) {
    AddSuiteTask(registry, suite_dir,
                 {"walker", t.name, 10,
                  {{"orientations", {14}}, {"height", {}}, {"velocity", {9}}},
                  SuiteEnvFactory<WalkerEnv>(t.move_speed)});
  }
}

}  // namespace envpool_core::dm_control
