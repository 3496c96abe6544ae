// Hopper and Walker2d: a torso on legs that moves in the x-z plane, rewarded
// for its x velocity and for staying healthy, as gymnasium's hopper_v4/_v5 and
// walker2d_v4/_v5 define them. They differ only in their model and in Hopper's
// extra health check, which hopper.cc adds by overriding IsHealthy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mujoco/locomotion_env.h"

namespace envpool_core::mujoco {

class PlanarWalkerEnv : public LocomotionEnv {
 public:
  PlanarWalkerEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
                  bool v5);

 protected:
  // The torso's z (qpos[1]) and angle (qpos[2]) strictly inside their ranges.
  virtual bool IsHealthy() const;

 private:
  void ResetModel(OutputRow& row) final;
  void StepModel(const double* action, OutputRow& row) final;
  void WriteObs(OutputRow& row) const;

  Health health_;
  double healthy_z_min_, healthy_z_max_;
  double healthy_angle_min_, healthy_angle_max_;
  double velocity_min_, velocity_max_;  // clip of the observed qvel
};

// healthy_z_min/max and healthy_angle_min/max with their defaults.
std::vector<OptionDef> TorsoRangeOptions(double z_min, double z_max, double angle_min,
                                         double angle_max);

// `family`-v4/-v5 on `xml_file`; `health_options` are the task's healthy_*
// range options (they sit between terminate_when_unhealthy and
// reset_noise_scale, in gymnasium's argument order). The caller sets make_env.
MujocoTaskDef PlanarWalkerTaskDef(const std::string& family, bool v5, std::string xml_file,
                                  std::vector<OptionDef> health_options);

}  // namespace envpool_core::mujoco
