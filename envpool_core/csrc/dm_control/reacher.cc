// The reacher domain (dm_control/suite/reacher.py): easy and hard, by the
// target's size. The target's place is in the model, so each env has a model
// of its own.
#include <cmath>

#include "dm_control/randomizers.h"
#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

class ReacherEnv final : public SuiteEnv {
 public:
  ReacherEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, double target_size)
      : SuiteEnv(spec, seed, std::move(model), /*private_model=*/true),
        target_size_(target_size),
        target_(mujoco::NameId(model_, mjOBJ_GEOM, "target")),
        finger_(mujoco::NameId(model_, mjOBJ_GEOM, "finger")) {}

 private:
  // EnvPool's test-build info: the target's place.
  void WriteStartInfo(OutputRow& row, int first) const override {
    mju_copy(row.Info<double>(first), model_->geom_pos + 3 * target_, 2);
  }

  void InitializeEpisode() override {
    private_model_->geom_size[3 * target_] = target_size_;
    RandomizeLimitedAndRotationalJoints(model_, data_, &random_);
    double angle = random_.Uniform(0.0, 2 * M_PI);
    double radius = random_.Uniform(0.05, 0.20);
    private_model_->geom_pos[3 * target_] = radius * std::sin(angle);
    private_model_->geom_pos[3 * target_ + 1] = radius * std::cos(angle);
  }

  void FingerToTarget(double* out) const {
    out[0] = data_->geom_xpos[3 * target_] - data_->geom_xpos[3 * finger_];
    out[1] = data_->geom_xpos[3 * target_ + 1] - data_->geom_xpos[3 * finger_ + 1];
  }

  void WriteObservation(OutputRow& row) override {
    mju_copy(row.Obs<double>(0), data_->qpos, model_->nq);
    FingerToTarget(row.Obs<double>(1));
    mju_copy(row.Obs<double>(2), data_->qvel, model_->nv);
  }

  double Reward() override {
    double radii = model_->geom_size[3 * target_] + model_->geom_size[3 * finger_];
    double to_target[2];
    FingerToTarget(to_target);
    return Tolerance(Norm(to_target, 2), 0.0, radii);
  }

  double target_size_;
  int target_, finger_;
};

}  // namespace

void RegisterReacher(TaskRegistry& registry, const std::string& suite_dir) {
  for (auto [name, size] : {std::pair{"easy", 0.05}, std::pair{"hard", 0.015}}) {
    AddSuiteTask(registry, suite_dir,
                 {"reacher", name, 1,
                  {{"position", {2}}, {"to_target", {2}}, {"velocity", {2}}},
                  SuiteEnvFactory<ReacherEnv>(size), "", {{"target", {2}}}});
  }
}

}  // namespace envpool_core::dm_control
