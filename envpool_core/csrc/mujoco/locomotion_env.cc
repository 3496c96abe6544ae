#include "mujoco/locomotion_env.h"

#include <utility>

namespace envpool_core::mujoco {

LocomotionEnv::LocomotionEnv(const EnvSpec& spec, std::uint64_t seed,
                             std::shared_ptr<const mjModel> model, bool v5, int num_excluded,
                             bool v4_post_constraint)
    : MujocoEnv(spec, seed, std::move(model), v5, v4_post_constraint),
      reset_noise_scale_(spec.config.GetFloat("reset_noise_scale")),
      exclude_positions_(spec.config.GetBool("exclude_current_positions_from_observation")),
      obs_qpos_begin_(exclude_positions_ ? num_excluded : 0),
      forward_reward_weight_(spec.config.GetFloat("forward_reward_weight")),
      ctrl_cost_weight_(spec.config.GetFloat("ctrl_cost_weight")) {}

LocomotionEnv::Motion LocomotionEnv::SimulateTracking(const double* action) {
  Point before = TrackedPoint();
  DoSimulation(action);
  Point after = TrackedPoint();
  return {after.x, after.y, (after.x - before.x) / dt_, (after.y - before.y) / dt_};
}

void LocomotionEnv::SetXYInfos(OutputRow& row, int first, double x, double y,
                               double x_velocity, double y_velocity) {
  SetInfo(row, first, x);
  SetInfo(row, first + 1, y);
  SetInfo(row, first + 2, Norm2(x, y));
  SetInfo(row, first + 3, x_velocity);
  SetInfo(row, first + 4, y_velocity);
}

int LocomotionObsSize(const Config& c, const mjModel& m, int num_excluded) {
  int excluded = c.GetBool("exclude_current_positions_from_observation") ? num_excluded : 0;
  return m.nq + m.nv - excluded;
}

Health::Health(const Config& c, bool v5)
    : v5_(v5),
      healthy_reward_(c.GetFloat("healthy_reward")),
      terminate_when_unhealthy_(c.GetBool("terminate_when_unhealthy")) {}

std::vector<OptionDef> StrictHealthyZOptions(double z_min, double z_max) {
  return {OptionDef::Float("healthy_z_min", z_min, "healthy while the torso z is > this"),
          OptionDef::Float("healthy_z_max", z_max, "healthy while the torso z is < this")};
}

}  // namespace envpool_core::mujoco
