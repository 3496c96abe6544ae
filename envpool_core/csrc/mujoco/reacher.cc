// Reacher-v4 / Reacher-v5 (gymnasium/envs/mujoco/reacher_v4.py, reacher_v5.py).
#include <cmath>
#include <stdexcept>

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

enum Info { kRewardDist, kRewardCtrl, kNumInfo };

int BodyId(const mjModel& m, const char* name) {
  int id = mj_name2id(&m, mjOBJ_BODY, name);
  if (id < 0) throw std::invalid_argument(std::string("Reacher needs a body named '") + name + "'");
  return id;
}

class ReacherEnv : public MujocoEnv {
 public:
  ReacherEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
             bool v5)
      : MujocoEnv(spec, seed, std::move(model), v5),
        v5_(v5),
        reward_dist_weight_(v5 ? spec.config.GetFloat("reward_dist_weight") : 1.0),
        reward_control_weight_(v5 ? spec.config.GetFloat("reward_control_weight") : 1.0),
        fingertip_(BodyId(*model_, "fingertip")),
        target_(BodyId(*model_, "target")) {}

  bool Reset(OutputRow& row) override {
    ResetData();
    int nq = model_->nq, nv = model_->nv;
    for (int i = 0; i < nq; ++i) qpos_[i] = Uniform(-0.1, 0.1) + model_->qpos0[i];
    double gx, gy;
    do {
      gx = Uniform(-0.2, 0.2);
      gy = Uniform(-0.2, 0.2);
    } while (!(Norm2(gx, gy) < 0.2));
    qpos_[nq - 2] = gx;
    qpos_[nq - 1] = gy;
    for (int i = 0; i < nv; ++i) qvel_[i] = Uniform(-0.005, 0.005);
    qvel_[nv - 2] = 0.0;
    qvel_[nv - 1] = 0.0;
    SetState(qpos_.data(), qvel_.data());
    WriteObs(row);
    ZeroInfos(row, kNumInfo);
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
  void FingertipToTarget(double* d) const {
    for (int k = 0; k < 3; ++k) d[k] = data_->xpos[3 * fingertip_ + k] - data_->xpos[3 * target_ + k];
  }

  void Rewards(const double* action, OutputRow& row) const {
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

  void WriteObs(OutputRow& row) const {
    double* obs = row.Obs<double>();
    for (int i = 0; i < 2; ++i) *obs++ = std::cos(data_->qpos[i]);
    for (int i = 0; i < 2; ++i) *obs++ = std::sin(data_->qpos[i]);
    for (int i = 2; i < model_->nq; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < 2; ++i) *obs++ = data_->qvel[i];
    double vec[3];
    FingertipToTarget(vec);
    for (int k = 0; k < (v5_ ? 2 : 3); ++k) *obs++ = vec[k];
  }

  bool v5_;
  double reward_dist_weight_;
  double reward_control_weight_;
  int fingertip_, target_;
};

}  // namespace

void RegisterReacher(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def;
    def.id = v5 ? "Reacher-v5" : "Reacher-v4";
    def.max_episode_steps = 50;
    def.xml_file = "reacher.xml";
    def.xml_option = v5;
    def.frame_skip = 2;
    def.frame_skip_option = v5;
    if (v5) {
      def.options = {
          OptionDef::Float("reward_dist_weight", 1.0,
                           "weight of the fingertip-to-target distance penalty"),
          OptionDef::Float("reward_control_weight", 1.0, "weight of the control cost"),
      };
    }
    def.make_spec = [v5](const Config&, const mjModel& m, EnvSpec* spec) {
      BodyId(m, "fingertip");
      BodyId(m, "target");
      if (m.nq < 4 || m.nv < 4) throw std::invalid_argument("Reacher needs 2 arm and 2 target joints");
      spec->obs.push_back(ObsSpec(2 + 2 + (m.nq - 2) + 2 + (v5 ? 2 : 3)));
      AddScalarInfos(spec, {"reward_dist", "reward_ctrl"});
    };
    def.make_env = [v5](const EnvSpec& spec, std::uint64_t seed,
                        std::shared_ptr<const mjModel> model) -> std::unique_ptr<Env> {
      return std::make_unique<ReacherEnv>(spec, seed, std::move(model), v5);
    };
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
