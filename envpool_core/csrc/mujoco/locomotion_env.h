// What gymnasium's running tasks (HalfCheetah, Hopper, Walker2d, Swimmer, Ant,
// Humanoid) share: a reward for the forward (x) velocity of a tracked point
// minus a control cost, the options that weight them, and an observation that
// starts with qpos (optionally without the x or x/y position) and qvel.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

class LocomotionEnv : public MujocoEnv {
 protected:
  // `num_excluded`: how many leading qpos entries (1: x, 2: x/y)
  // exclude_current_positions_from_observation leaves out.
  LocomotionEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
                bool v5, int num_excluded, bool v4_post_constraint = false);

  struct Point {
    double x, y;
  };
  // The point whose x velocity is rewarded. By default the root joint's first
  // two coordinates: x and y for Swimmer; x and z for the tasks that move in
  // the x-z plane, which read x only.
  virtual Point TrackedPoint() const { return {data_->qpos[0], data_->qpos[1]}; }

  // The tracked point after a step, and its velocity over the step.
  struct Motion {
    double x, y, x_velocity, y_velocity;
  };
  // gymnasium's step() of a running task: DoSimulation, and the tracked
  // point's (after - before) / dt.
  Motion SimulateTracking(const double* action);

  double ForwardReward(double x_velocity) const { return forward_reward_weight_ * x_velocity; }
  double ControlCost(const double* ctrl) const {
    return ctrl_cost_weight_ * SquaredNorm(ctrl, model_->nu);
  }

  // The five infos the x/y tasks report side by side, from index `first`:
  // x_position, y_position, distance_from_origin, x_velocity, y_velocity.
  static void SetXYInfos(OutputRow& row, int first, double x, double y, double x_velocity,
                         double y_velocity);

  const double reset_noise_scale_;
  const bool exclude_positions_;
  const int obs_qpos_begin_;  // WriteStateObs' qpos_begin: num_excluded or 0

 private:
  const double forward_reward_weight_;
  const double ctrl_cost_weight_;
};

// The size of an observation of qpos (less the excluded positions) and qvel.
int LocomotionObsSize(const Config& c, const mjModel& m, int num_excluded);

// healthy_reward and terminate_when_unhealthy (Hopper, Walker2d, Ant, Humanoid).
class Health {
 public:
  Health(const Config& c, bool v5);
  // v5 pays healthy_reward while healthy; v4 also on an unhealthy step when
  // that step ends the episode (gymnasium's v4 formula, kept for alignment).
  double Reward(bool healthy) const {
    bool paid = v5_ ? healthy : (healthy || terminate_when_unhealthy_);
    return paid ? healthy_reward_ : 0.0;
  }
  bool Terminated(bool healthy) const { return !healthy && terminate_when_unhealthy_; }

 private:
  bool v5_;
  double healthy_reward_;
  bool terminate_when_unhealthy_;
};

// healthy_z_min/max with gymnasium's strict test (min < z < max), as Hopper,
// Walker2d and Humanoid use it.
std::vector<OptionDef> StrictHealthyZOptions(double z_min, double z_max);

}  // namespace envpool_core::mujoco
