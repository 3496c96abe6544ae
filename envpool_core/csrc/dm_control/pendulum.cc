// The pendulum domain (dm_control/suite/pendulum.py): swingup.
#include <cmath>

#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

class PendulumEnv final : public SuiteEnv {
 public:
  PendulumEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model)
      : SuiteEnv(spec, seed, std::move(model)),
        pole_(mujoco::NameId(model_, mjOBJ_BODY, "pole")),
        hinge_(model_->jnt_qposadr[mujoco::NameId(model_, mjOBJ_JOINT, "hinge")]),
        hinge_dof_(model_->jnt_dofadr[mujoco::NameId(model_, mjOBJ_JOINT, "hinge")]) {}

 private:
  void InitializeEpisode() override { data_->qpos[hinge_] = random_.Uniform(-M_PI, M_PI); }

  double PoleVertical() const { return data_->xmat[9 * pole_ + 8]; }

  void WriteObservation(OutputRow& row) override {
    double* orientation = row.Obs<double>(0);
    orientation[0] = PoleVertical();
    orientation[1] = data_->xmat[9 * pole_ + 2];
    *row.Obs<double>(1) = data_->qvel[hinge_dof_];
  }

  double Reward() override {
    // Within 8 degrees of upright (np.deg2rad multiplies by pi / 180).
    static const double kCosineBound = std::cos(8.0 * (M_PI / 180.0));
    return Tolerance(PoleVertical(), kCosineBound, 1.0);
  }

  int pole_, hinge_, hinge_dof_;
};

}  // namespace

void RegisterPendulum(TaskRegistry& registry, const std::string& suite_dir) {
  AddSuiteTask(registry, suite_dir,
               {"pendulum", "swingup", 1, {{"orientation", {2}}, {"velocity", {1}}},
                SuiteEnvFactory<PendulumEnv>()});
}

}  // namespace envpool_core::dm_control
