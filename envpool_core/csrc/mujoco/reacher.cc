// Reacher-v4 / Reacher-v5 (gymnasium/envs/mujoco/reacher_v4.py, reacher_v5.py).
#include <cmath>
#include <stdexcept>
#include <string>

#include "mujoco/arm_env.h"
#include "mujoco/model_names.h"

namespace envpool_core::mujoco {

namespace {

enum Info { kRewardDist, kRewardCtrl, kNumInfo };

class ReacherEnv final : public ArmEnv {
 public:
  ReacherEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
             bool v5)
      : ArmEnv(spec, seed, std::move(model), v5),
        reward_dist_weight_(spec.config.GetFloat("reward_dist_weight")),
        reward_control_weight_(spec.config.GetFloat("reward_control_weight")),
        reset_qpos_scale_(spec.config.GetFloat("reset_qpos_scale")),
        reset_qvel_scale_(spec.config.GetFloat("reset_qvel_scale")),
        reset_goal_scale_(spec.config.GetFloat("reset_goal_scale")),
        fingertip_(NameId(model_, mjOBJ_BODY, "fingertip")),
        target_(NameId(model_, mjOBJ_BODY, "target")) {}

 private:
  void ResetModel(OutputRow& row) override {
    int nq = model_->nq;
    DrawQposNoise(reset_qpos_scale_, nq - 2);  // the target's two are drawn below
    double gx, gy;
    do {
      gx = Uniform(-reset_goal_scale_, reset_goal_scale_);
      gy = Uniform(-reset_goal_scale_, reset_goal_scale_);
    } while (!(Norm2(gx, gy) < reset_goal_scale_));
    qpos_[nq - 2] = gx;
    qpos_[nq - 1] = gy;
    SetInitStateWithTarget(reset_qvel_scale_, 2);
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
    double weighted_dist = reward_dist_weight_ * dist;
    double weighted_ctrl = reward_control_weight_ * ctrl;
    row.reward = static_cast<float>(weighted_dist + weighted_ctrl);
    // v5 reports the weighted terms, v4 (which gymnasium does not weight) the raw ones.
    SetInfo(row, kRewardDist, v5_ ? weighted_dist : dist);
    SetInfo(row, kRewardCtrl, v5_ ? weighted_ctrl : ctrl);
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
  double reset_qpos_scale_, reset_qvel_scale_, reset_goal_scale_;
  int fingertip_, target_;
};

}  // namespace

void RegisterReacher(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = VersionedTaskDef("Reacher", v5, 50, "reacher.xml", 2);
    // gymnasium's v4 has no options: the weights are v5's; EnvPool has them (under
    // other names) and the reset ranges for both versions.
    def.options = {
        OptionDef::Float("reward_dist_weight", 1.0,
                         "weight of the fingertip-to-target distance penalty"),
        OptionDef::Float("reward_control_weight", 1.0, "weight of the control cost"),
        OptionDef::Float("reset_qpos_scale", 0.1, "the arm's angles start at U(-scale, scale)",
                         0.0),
        ResetQvelScaleOption(),
        OptionDef::Float("reset_goal_scale", 0.2,
                         "the target starts uniformly in the disc of this radius", 0.0),
    };
    def.aliases = {{"dist_cost_weight", "reward_dist_weight"},
                   {"ctrl_cost_weight", "reward_control_weight"}};
    RefuseVersionSwitch(&def, "reward_after_step", "False", "True");
    RefuseVersionSwitch(&def, "obs_include_z_distance", "True", "False");
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      if (!(c.GetFloat("reset_goal_scale") > 0.0)) {  // the disc would have no point to draw
        throw std::invalid_argument("option 'reset_goal_scale' must be > 0, got " +
                                    std::to_string(c.GetFloat("reset_goal_scale")));
      }
      NameId(&m, mjOBJ_BODY, "fingertip");
      NameId(&m, mjOBJ_BODY, "target");
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
