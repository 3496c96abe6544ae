// The acrobot domain (dm_control/suite/acrobot.py): swingup, smooth or sparse.
#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

class AcrobotEnv final : public SuiteEnv {
 public:
  AcrobotEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, bool sparse)
      : SuiteEnv(spec, seed, std::move(model)),
        sparse_(sparse),
        shoulder_(model_->jnt_qposadr[mujoco::NameId(model_, mjOBJ_JOINT, "shoulder")]),
        elbow_(model_->jnt_qposadr[mujoco::NameId(model_, mjOBJ_JOINT, "elbow")]),
        upper_arm_(mujoco::NameId(model_, mjOBJ_BODY, "upper_arm")),
        lower_arm_(mujoco::NameId(model_, mjOBJ_BODY, "lower_arm")),
        target_(mujoco::NameId(model_, mjOBJ_SITE, "target")),
        tip_(mujoco::NameId(model_, mjOBJ_SITE, "tip")) {}

 private:
  void InitializeEpisode() override {
    data_->qpos[shoulder_] = random_.Uniform(-M_PI, M_PI);
    data_->qpos[elbow_] = random_.Uniform(-M_PI, M_PI);
  }

  void WriteObservation(OutputRow& row) override {
    // The arms' xz (horizontal), then their zz (vertical).
    double* orientations = row.Obs<double>(0);
    orientations[0] = data_->xmat[9 * upper_arm_ + 2];
    orientations[1] = data_->xmat[9 * lower_arm_ + 2];
    orientations[2] = data_->xmat[9 * upper_arm_ + 8];
    orientations[3] = data_->xmat[9 * lower_arm_ + 8];
    mju_copy(row.Obs<double>(1), data_->qvel, model_->nv);
  }

  double Reward() override {
    double tip_to_target[3];
    mju_sub3(tip_to_target, data_->site_xpos + 3 * target_, data_->site_xpos + 3 * tip_);
    return Tolerance(Norm(tip_to_target, 3), 0.0, model_->site_size[3 * target_],
                     sparse_ ? 0.0 : 1.0);
  }

  bool sparse_;
  int shoulder_, elbow_, upper_arm_, lower_arm_, target_, tip_;
};

}  // namespace

void RegisterAcrobot(TaskRegistry& registry, const std::string& suite_dir) {
  for (auto [name, sparse] : {std::pair{"swingup", false}, std::pair{"swingup_sparse", true}}) {
    AddSuiteTask(registry, suite_dir,
                 {"acrobot", name, 1, {{"orientations", {4}}, {"velocity", {2}}},
                  SuiteEnvFactory<AcrobotEnv>(sparse)});
  }
}

}  // namespace envpool_core::dm_control
