// The point-mass domain (dm_control/suite/point_mass.py): easy, and hard, where
// each episode drives the mass through random directions (the two tendons'
// coefficients, in the model: each env of hard has a model of its own).
#include <cmath>
#include <stdexcept>
#include <string>

#include "dm_control/randomizers.h"
#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

class PointMassEnv final : public SuiteEnv {
 public:
  PointMassEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, bool randomize_gains)
      : SuiteEnv(spec, seed, std::move(model), /*private_model=*/randomize_gains),
        randomize_gains_(randomize_gains),
        target_(mujoco::NameId(model_, mjOBJ_GEOM, "target")),
        pointmass_(mujoco::NameId(model_, mjOBJ_GEOM, "pointmass")) {
    if (model_->nwrap != 4) {
      throw std::runtime_error("point_mass: expected 4 tendon wraps in the model, found " +
                               std::to_string(model_->nwrap));
    }
  }

 private:
  void RandomDirection(double* dir) {
    dir[0] = random_.StandardNormal();
    dir[1] = random_.StandardNormal();
    double norm = Norm(dir, 2);
    dir[0] /= norm;
    dir[1] /= norm;
  }

  // EnvPool's test-build info: the tendons' wrap parameters (their random directions).
  void WriteStartInfo(OutputRow& row, int first) const override {
    mju_copy(row.Info<double>(first), model_->wrap_prm, 4);
  }

  void InitializeEpisode() override {
    RandomizeLimitedAndRotationalJoints(model_, data_, &random_);
    if (!randomize_gains_) return;
    double dir1[2], dir2[2];
    RandomDirection(dir1);
    do {
      RandomDirection(dir2);
    } while (std::fabs(std::fma(dir1[1], dir2[1], dir1[0] * dir2[0])) > 0.9);  // np.dot
    private_model_->wrap_prm[0] = dir1[0];
    private_model_->wrap_prm[1] = dir1[1];
    private_model_->wrap_prm[2] = dir2[0];
    private_model_->wrap_prm[3] = dir2[1];
  }

  void WriteObservation(OutputRow& row) override {
    mju_copy(row.Obs<double>(0), data_->qpos, model_->nq);
    mju_copy(row.Obs<double>(1), data_->qvel, model_->nv);
  }

  double Reward() override {
    double target_size = model_->geom_size[3 * target_];
    double to_target[3];
    mju_sub3(to_target, data_->geom_xpos + 3 * target_, data_->geom_xpos + 3 * pointmass_);
    double near_target = Tolerance(Norm(to_target, 3), 0.0, target_size, target_size);
    double control_reward = 0.0;
    for (int i = 0; i < model_->nu; ++i) {
      control_reward += Tolerance(data_->ctrl[i], 0.0, 0.0, 1.0, Sigmoid::kQuadratic, 0.0);
    }
    double small_control = (control_reward / model_->nu + 4) / 5;
    return near_target * small_control;
  }

  bool randomize_gains_;
  int target_, pointmass_;
};

}  // namespace

void RegisterPointMass(TaskRegistry& registry, const std::string& suite_dir) {
  for (auto [name, randomize] : {std::pair{"easy", false}, std::pair{"hard", true}}) {
    AddSuiteTask(registry, suite_dir,
                 {"point_mass", name, 1, {{"position", {2}}, {"velocity", {2}}},
                  SuiteEnvFactory<PointMassEnv>(randomize), "", {{"wrap_prm", {4}}}});
  }
}

}  // namespace envpool_core::dm_control
