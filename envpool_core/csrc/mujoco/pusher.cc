// Pusher-v4 / Pusher-v5 (gymnasium/envs/mujoco/pusher_v4.py, pusher_v5.py).
//
// gymnasium refuses Pusher-v4 on MuJoCo >= 3 (its pusher.xml simulates
// differently there, gymnasium issue #950); here it runs gymnasium's v4 code
// (reward from the state before the step, unweighted reward_ctrl in info) on
// pusher.xml with the installed MuJoCo.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mujoco/arm_env.h"
#include "mujoco/model_names.h"

namespace envpool_core::mujoco {

namespace {

enum Info { kRewardDist, kRewardCtrl, kRewardNear };

// Where the cylinder (the object) starts: uniform in the box, redrawn until it
// is farther than dist_min from the origin.
struct CylinderStart {
  double x_min, x_max, y_min, y_max, dist_min;
};

CylinderStart CylinderRange(const Config& c) {
  CylinderStart r{c.GetFloat("cylinder_x_min"), c.GetFloat("cylinder_x_max"),
                  c.GetFloat("cylinder_y_min"), c.GetFloat("cylinder_y_max"),
                  c.GetFloat("cylinder_dist_min")};
  if (!(r.x_min <= r.x_max && r.y_min <= r.y_max)) {
    throw std::invalid_argument("Pusher's cylinder_x_min/_max and cylinder_y_min/_max must be "
                                "ordered ranges (min <= max)");
  }
  // Some point of the box must lie beyond dist_min, or the draw never ends.
  double far_x = std::max(std::abs(r.x_min), std::abs(r.x_max));
  double far_y = std::max(std::abs(r.y_min), std::abs(r.y_max));
  if (!(std::sqrt(far_x * far_x + far_y * far_y) > r.dist_min)) {
    throw std::invalid_argument("Pusher's cylinder_dist_min (" + std::to_string(r.dist_min) +
                                ") leaves no point of the cylinder_x/y box to start from");
  }
  return r;
}

class PusherEnv final : public ArmEnv {
 public:
  PusherEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model, bool v5)
      : ArmEnv(spec, seed, std::move(model), v5),
        reward_near_weight_(spec.config.GetFloat("reward_near_weight")),
        reward_dist_weight_(spec.config.GetFloat("reward_dist_weight")),
        reward_control_weight_(spec.config.GetFloat("reward_control_weight")),
        reset_qvel_scale_(spec.config.GetFloat("reset_qvel_scale")),
        cylinder_(CylinderRange(spec.config)),
        tips_arm_(NameId(model_, mjOBJ_BODY, "tips_arm")),
        object_(NameId(model_, mjOBJ_BODY, "object")),
        goal_(NameId(model_, mjOBJ_BODY, "goal")) {}

 private:
  void ResetModel(OutputRow& row) override {
    int nq = model_->nq;
    mju_copy(qpos_.data(), model_->qpos0, nq);
    double cx, cy;
    do {
      cx = Uniform(cylinder_.x_min, cylinder_.x_max);
      cy = Uniform(cylinder_.y_min, cylinder_.y_max);
    } while (!(Norm2(cx, cy) > cylinder_.dist_min));
    qpos_[nq - 4] = cx;
    qpos_[nq - 3] = cy;
    qpos_[nq - 2] = 0.0;  // goal
    qpos_[nq - 1] = 0.0;
    SetInitStateWithTarget(reset_qvel_scale_, 4);
    WriteObs(row);
    ZeroInfos(row, v5_ ? 3 : 2);
  }

  double Distance(int a, int b) const {
    const mjtNum* pa = data_->xpos + 3 * a;
    const mjtNum* pb = data_->xpos + 3 * b;
    double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
    return Norm(d, 3);
  }

  void Rewards(const double* action, OutputRow& row) const override {
    double near = -Distance(object_, tips_arm_);
    double dist = -Distance(object_, goal_);
    double ctrl = -SquaredNorm(action, model_->nu);
    if (v5_) {
      near *= reward_near_weight_;
      dist *= reward_dist_weight_;
      ctrl *= reward_control_weight_;
      row.reward = static_cast<float>(dist + ctrl + near);
      SetInfo(row, kRewardNear, near);
    } else {  // v4 reports the unweighted terms
      row.reward = static_cast<float>(reward_dist_weight_ * dist + reward_control_weight_ * ctrl +
                                      reward_near_weight_ * near);
    }
    SetInfo(row, kRewardDist, dist);
    SetInfo(row, kRewardCtrl, ctrl);
  }

  void WriteObs(OutputRow& row) const override {
    double* obs = row.Obs<double>();
    for (int i = 0; i < 7; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < 7; ++i) *obs++ = data_->qvel[i];
    for (int body : {tips_arm_, object_, goal_}) {
      for (int k = 0; k < 3; ++k) *obs++ = data_->xpos[3 * body + k];
    }
  }

  double reward_near_weight_;
  double reward_dist_weight_;
  double reward_control_weight_;
  double reset_qvel_scale_;
  CylinderStart cylinder_;
  int tips_arm_, object_, goal_;
};

}  // namespace

void RegisterPusher(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = VersionedTaskDef("Pusher", v5, 100, v5 ? "pusher_v5.xml" : "pusher.xml", 5);
    // gymnasium's v4 has no options: the weights are v5's; EnvPool has them (under
    // other names) and the reset ranges for both versions.
    def.options = {
        OptionDef::Float("reward_near_weight", 0.5,
                         "weight of the fingertip-to-object distance penalty"),
        OptionDef::Float("reward_dist_weight", 1.0,
                         "weight of the object-to-goal distance penalty"),
        OptionDef::Float("reward_control_weight", 0.1, "weight of the control cost"),
        ResetQvelScaleOption(),
        OptionDef::Float("cylinder_x_min", -0.3, "the object's start x is U(x_min, x_max)"),
        OptionDef::Float("cylinder_x_max", 0.0, "the object's start x is U(x_min, x_max)"),
        OptionDef::Float("cylinder_y_min", -0.2, "the object's start y is U(y_min, y_max)"),
        OptionDef::Float("cylinder_y_max", 0.2, "the object's start y is U(y_min, y_max)"),
        OptionDef::Float("cylinder_dist_min", 0.17,
                         "the object's start is redrawn until farther than this from the origin"),
    };
    def.aliases = {{"near_cost_weight", "reward_near_weight"},
                   {"dist_cost_weight", "reward_dist_weight"},
                   {"ctrl_cost_weight", "reward_control_weight"}};
    RefuseVersionSwitch(&def, "reward_after_step", "False", "True");
    RefuseVersionSwitch(&def, "weighted_reward_info", "False", "True");
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      CylinderRange(c);
      for (const char* body : {"tips_arm", "object", "goal"}) NameId(&m, mjOBJ_BODY, body);
      if (m.nq < 7 + 4 || m.nv < 7 + 4) {
        throw std::invalid_argument("Pusher needs 7 arm joints and 4 object/goal joints");
      }
      spec->obs.push_back(ObsSpec(23));
      if (v5) {
        AddScalarInfos(spec, {"reward_dist", "reward_ctrl", "reward_near"});
      } else {
        AddScalarInfos(spec, {"reward_dist", "reward_ctrl"});
      }
    };
    def.make_env = EnvFactory<PusherEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
