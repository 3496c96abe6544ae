// Reacher and Pusher: an arm rewarded for distances to a target, with the step
// order of gymnasium's reacher/pusher v4 and v5 (which differ) and their
// reset of the arm's velocity.
#pragma once

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

class ArmEnv : public MujocoEnv {
 protected:
  using MujocoEnv::MujocoEnv;

  virtual void WriteObs(OutputRow& row) const = 0;
  // Sets the reward and reward infos from the current state.
  virtual void Rewards(const double* action, OutputRow& row) const = 0;

  // qvel = U(-qvel_scale, qvel_scale) (gymnasium's 0.005), then 0 for the last
  // `num_target_joints` (the object/goal joints, which start at rest); then
  // set_state with qpos_.
  void SetInitStateWithTarget(double qvel_scale, int num_target_joints) {
    DrawQvelNoise(qvel_scale, model_->nv - num_target_joints);
    SetState(qpos_.data(), qvel_.data());
  }

 private:
  void StepModel(const double* action, OutputRow& row) final {
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
  }
};

// gymnasium's reset noise of the arm's velocities, EnvPool's reset_qvel_scale.
inline OptionDef ResetQvelScaleOption() {
  return OptionDef::Float("reset_qvel_scale", 0.005,
                          "the arm's velocities start at U(-scale, scale)", 0.0);
}

}  // namespace envpool_core::mujoco
