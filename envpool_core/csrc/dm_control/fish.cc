// The fish domain (dm_control/suite/fish.py): upright, and swim to a target
// placed at random each episode (in the model: each env has a model of its own).
#include <array>

#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

constexpr std::array<const char*, 7> kJoints = {
    "tail1", "tail_twist", "tail2", "finright_roll", "finright_pitch", "finleft_roll",
    "finleft_pitch"};

class FishEnv final : public SuiteEnv {
 public:
  FishEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, bool swim)
      : SuiteEnv(spec, seed, std::move(model), /*private_model=*/true),
        swim_(swim),
        root_(model_->jnt_qposadr[mujoco::NameId(model_, mjOBJ_JOINT, "root")]),
        torso_(mujoco::NameId(model_, mjOBJ_BODY, "torso")),
        target_(mujoco::NameId(model_, mjOBJ_GEOM, "target")),
        mouth_(mujoco::NameId(model_, mjOBJ_GEOM, "mouth")) {
    for (std::size_t j = 0; j < kJoints.size(); ++j) {
      int id = mujoco::NameId(model_, mjOBJ_JOINT, kJoints[j]);
      joint_qpos_[j] = model_->jnt_qposadr[id];
    }
  }

 private:
  // EnvPool's test-build info on swim: the target's place.
  void WriteStartInfo(OutputRow& row, int first) const override {
    if (swim_) mju_copy(row.Info<double>(first), model_->geom_pos + 3 * target_, 3);
  }

  void InitializeEpisode() override {
    double quat[4];
    for (double& q : quat) q = random_.StandardNormal();
    double norm = Norm(quat, 4);
    for (int i = 0; i < 4; ++i) data_->qpos[root_ + 3 + i] = quat[i] / norm;
    for (int adr : joint_qpos_) data_->qpos[adr] = random_.Uniform(-0.2, 0.2);
    if (swim_) {
      double* pos = private_model_->geom_pos + 3 * target_;
      pos[0] = random_.Uniform(-0.4, 0.4);
      pos[1] = random_.Uniform(-0.4, 0.4);
      pos[2] = random_.Uniform(0.1, 0.3);
    } else {
      private_model_->geom_rgba[4 * target_ + 3] = 0.0F;  // no target to show
    }
  }

  double Upright() const { return data_->xmat[9 * torso_ + 8]; }

  // The target seen from the mouth, in the mouth's frame: (target - mouth) . R,
  // each entry summed as numpy's dot does (fused multiply-adds, in order).
  void MouthToTarget(double* out) const {
    double global[3];
    mju_sub3(global, data_->geom_xpos + 3 * target_, data_->geom_xpos + 3 * mouth_);
    const double* r = data_->geom_xmat + 9 * mouth_;
    for (int j = 0; j < 3; ++j) {
      double s = 0.0;
      for (int i = 0; i < 3; ++i) s = std::fma(global[i], r[3 * i + j], s);
      out[j] = s;
    }
  }

  void WriteObservation(OutputRow& row) override {
    double* angles = row.Obs<double>(0);
    for (int adr : joint_qpos_) *angles++ = data_->qpos[adr];
    *row.Obs<double>(1) = Upright();
    mju_copy(row.Obs<double>(2), data_->qvel, model_->nv);
    if (swim_) {
      MouthToTarget(row.Obs<double>(3));
    } else {
      mju_zero(row.Obs<double>(3), 3);  // upright has no target: zeros, as EnvPool's
    }
  }

  double Reward() override {
    if (!swim_) return Tolerance(Upright(), 1.0, 1.0, 1.0);
    double radii = model_->geom_size[3 * mouth_] + model_->geom_size[3 * target_];
    double to_target[3];
    MouthToTarget(to_target);
    double in_target = Tolerance(Norm(to_target, 3), 0.0, radii, 2 * radii);
    double is_upright = 0.5 * (Upright() + 1);
    return (7 * in_target + is_upright) / 8;
  }

  bool swim_;
  int root_, torso_, target_, mouth_;
  std::array<int, kJoints.size()> joint_qpos_{};
};

}  // namespace

void RegisterFish(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.04 s over the model's 0.004 s. EnvPool's keys and order for
  // both tasks (dm_control's swim puts `target` before `velocity`).
  std::vector<ObsArray> obs = {
      {"joint_angles", {7}}, {"upright", {}}, {"velocity", {13}}, {"target", {3}}};
  for (auto [name, swim] : {std::pair{"upright", false}, std::pair{"swim", true}}) {
    std::vector<ObsArray> start_info;
    if (swim) start_info.push_back({"target0", {3}});
    AddSuiteTask(registry, suite_dir,
                 {"fish", name, 10, obs, SuiteEnvFactory<FishEnv>(swim), "", start_info});
  }
}

}  // namespace envpool_core::dm_control
