// Reacher-v4 / Reacher-v5 (gymnasium/envs/mujoco/reacher_v4.py, reacher_v5.py).
#include <cmath>
#include <stdexcept>

#include "mujoco/arm_env.h"

namespace envpool_core::mujoco {

namespace {

enum Info { kRewardDist, kRewardCtrl, kNumInfo };

class ReacherEnv final : public ArmEnv {
 public:
  ReacherEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
             bool v5)
      : ArmEnv(spec, seed, std::move(model), v5),
        reward_dist_weight_(v5 ? spec.config.GetFloat("reward_dist_weight") : 1.0),
        reward_control_weight_(v5 ? spec.config.GetFloat("reward_control_weight") : 1.0),
        fingertip_(BodyId(*model_, "fingertip", "Reacher")),
        target_(BodyId(*model_, "target", "Reacher")) {}

 private:
  void ResetModel(OutputRow& row) override {
    int nq = model_->nq;
    DrawQposNoise(0.1);
    double gx, gy;
    do {
      gx = Uniform(-0.2, 0.2);
      gy = Uniform(-0.2, 0.2);
    } while (!(Norm2(gx, gy) < 0.2));
    qpos_[nq - 2] = gx;
    qpos_[nq - 1] = gy;
    SetInitStateWithTarget(2);
    WriteObs(row);
    ZeroInfos(row, kNumInfo);
  }

  void FingertipToTarget(double* d) const {
    for (int k = 0; k < 3; ++k) {
      d[k] = data_->xpos[3 * fingertip_ + k] - data_->xpos[3 * target_ + k];
    }
  }

  void Rewards(const double* action, OutputRow& row) const override {
    double vec[3];
    FingertipToTarget(vec);
    double dist = -Norm(vec, 3);
    double ctrl = -SquaredNorm(action, model_->nu);
    if (v5_) {
      dist *= reward_dist_weight_;
      ctrl *= reward_control_weight_;
    }
    row.reward = static_cast<float>(dist + ctrl);
    SetInfo(row, kRewardDist, dist);
    SetInfo(row, kRewardCtrl, ctrl);
  }

  void WriteObs(OutputRow& row) const override {
    double* obs = row.Obs<double>();
    for (int i = 0; i < 2; ++i) *obs++ = std::cos(data_->qpos[i]);
    for (int i = 0; i < 2; ++i) *obs++ = std::sin(data_->qpos[i]);
    for (int i = 2; i < model_->nq; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < 2; ++i) *obs++ = data_->qvel[i];
    double vec[3];
    FingertipToTarget(vec);
    for (int k = 0; k < (v5_ ? 2 : 3); ++k) *obs++ = vec[k];
  }

  double reward_dist_weight_;
  double reward_control_weight_;
  int fingertip_, target_;
};

}  // namespace

void RegisterReacher(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = VersionedTaskDef("Reacher", v5, 50, "reacher.xml", 2);
    if (v5) {
      def.options = {
          OptionDef::Float("reward_dist_weight", 1.0,
                           "weight of the fingertip-to-target distance penalty"),
          OptionDef::Float("reward_control_weight", 1.0, "weight of the control cost"),
      };
    }
    def.make_spec = [v5](const Config&, const mjModel& m, EnvSpec* spec) {
      BodyId(m, "fingertip", "Reacher");
      BodyId(m, "target", "Reacher");
      if (m.nq < 4 || m.nv < 4) {
        throw std::invalid_argument("Reacher needs 2 arm and 2 target joints");
      }
      spec->obs.push_back(ObsSpec(2 + 2 + (m.nq - 2) + 2 + (v5 ? 2 : 3)));
      AddScalarInfos(spec, {"reward_dist", "reward_ctrl"});
    };
    def.make_env = EnvFactory<ReacherEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
