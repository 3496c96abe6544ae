// Pusher-v4 / Pusher-v5 (gymnasium/envs/mujoco/pusher_v4.py, pusher_v5.py).
//
// gymnasium refuses Pusher-v4 on MuJoCo >= 3 (its pusher.xml simulates
// differently there, gymnasium issue #950); here it runs gymnasium's v4 code
// (reward from the state before the step, unweighted reward_ctrl in info) on
// pusher.xml with the installed MuJoCo.
#include <stdexcept>

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

enum Info { kRewardDist, kRewardCtrl, kRewardNear };

int BodyId(const mjModel& m, const char* name) {
  int id = mj_name2id(&m, mjOBJ_BODY, name);
  if (id < 0) throw std::invalid_argument(std::string("Pusher needs a body named '") + name + "'");
  return id;
}

class PusherEnv : public MujocoEnv {
 public:
  PusherEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model, bool v5)
      : MujocoEnv(spec, seed, std::move(model), v5),
        v5_(v5),
        reward_near_weight_(v5 ? spec.config.GetFloat("reward_near_weight") : 0.5),
        reward_dist_weight_(v5 ? spec.config.GetFloat("reward_dist_weight") : 1.0),
        reward_control_weight_(v5 ? spec.config.GetFloat("reward_control_weight") : 0.1),
        tips_arm_(BodyId(*model_, "tips_arm")),
        object_(BodyId(*model_, "object")),
        goal_(BodyId(*model_, "goal")) {}

  bool Reset(OutputRow& row) override {
    ResetData();
    int nq = model_->nq, nv = model_->nv;
    mju_copy(qpos_.data(), model_->qpos0, nq);
    double cx, cy;
    do {
      cx = Uniform(-0.3, 0.0);
      cy = Uniform(-0.2, 0.2);
    } while (!(Norm2(cx, cy) > 0.17));
    qpos_[nq - 4] = cx;
    qpos_[nq - 3] = cy;
    qpos_[nq - 2] = 0.0;  // goal
    qpos_[nq - 1] = 0.0;
    for (int i = 0; i < nv; ++i) qvel_[i] = Uniform(-0.005, 0.005);
    for (int i = nv - 4; i < nv; ++i) qvel_[i] = 0.0;
    SetState(qpos_.data(), qvel_.data());
    WriteObs(row);
    ZeroInfos(row, v5_ ? 3 : 2);
    WriteResetState(row);
    return true;
  }

  void Step(const void* action_ptr, OutputRow& row) override {
    const auto* action = static_cast<const double*>(action_ptr);
    if (v5_) {
      DoSimulation(action);
      WriteObs(row);
      Rewards(action, row);
    } else {
      Rewards(action, row);  // v4: from the state before the step
      DoSimulation(action);
      WriteObs(row);
    }
    row.terminated = false;
    WriteResetState(row);
  }

 private:
  double Distance(int a, int b) const {
    const mjtNum* pa = data_->xpos + 3 * a;
    const mjtNum* pb = data_->xpos + 3 * b;
    double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
    return Norm(d, 3);
  }

  void Rewards(const double* action, OutputRow& row) const {
    double near = -Distance(object_, tips_arm_);
    double dist = -Distance(object_, goal_);
    double ctrl = -SquaredNorm(action, model_->nu);
    if (v5_) {
      near *= reward_near_weight_;
      dist *= reward_dist_weight_;
      ctrl *= reward_control_weight_;
      row.reward = static_cast<float>(dist + ctrl + near);
      SetInfo(row, kRewardNear, near);
    } else {
      row.reward = static_cast<float>(dist + reward_control_weight_ * ctrl +
                                      reward_near_weight_ * near);
    }
    SetInfo(row, kRewardDist, dist);
    SetInfo(row, kRewardCtrl, ctrl);
  }

  void WriteObs(OutputRow& row) const {
    double* obs = row.Obs<double>();
    for (int i = 0; i < 7; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < 7; ++i) *obs++ = data_->qvel[i];
    for (int body : {tips_arm_, object_, goal_}) {
      for (int k = 0; k < 3; ++k) *obs++ = data_->xpos[3 * body + k];
    }
  }

  bool v5_;
  double reward_near_weight_;
  double reward_dist_weight_;
  double reward_control_weight_;
  int tips_arm_, object_, goal_;
};

}  // namespace

void RegisterPusher(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def;
    def.id = v5 ? "Pusher-v5" : "Pusher-v4";
    def.max_episode_steps = 100;
    def.xml_file = v5 ? "pusher_v5.xml" : "pusher.xml";
    def.xml_option = v5;
    def.frame_skip = 5;
    def.frame_skip_option = v5;
    if (v5) {
      def.options = {
          OptionDef::Float("reward_near_weight", 0.5,
                           "weight of the fingertip-to-object distance penalty"),
          OptionDef::Float("reward_dist_weight", 1.0,
                           "weight of the object-to-goal distance penalty"),
          OptionDef::Float("reward_control_weight", 0.1, "weight of the control cost"),
      };
    }
    def.make_spec = [v5](const Config&, const mjModel& m, EnvSpec* spec) {
      for (const char* body : {"tips_arm", "object", "goal"}) BodyId(m, body);
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
    def.make_env = [v5](const EnvSpec& spec, std::uint64_t seed,
                        std::shared_ptr<const mjModel> model) -> std::unique_ptr<Env> {
      return std::make_unique<PusherEnv>(spec, seed, std::move(model), v5);
    };
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
