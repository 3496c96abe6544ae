// The planar arm with a two-fingered hand that the manipulator and stacker
// domains share (dm_control/suite/manipulator.py and stacker.py): its joints,
// their random initial angles, its observation, and the 2-D pose of a body.
#pragma once

#include <mujoco/mujoco.h>

#include <array>

#include "dm_control/numpy_random.h"

namespace envpool_core::dm_control {

class PlanarArm {
 public:
  static constexpr int kNumJoints = 8;

  explicit PlanarArm(const mjModel* model);

  // Each joint uniform in its range (or in [-pi, pi) where unlimited), in
  // dm_control's order, then the finger set to the thumb's angle.
  void RandomizeJoints(const mjModel* model, mjData* data, NumpyRandomState& random) const;

  // arm_pos (sin and cos of each joint angle, 8 x 2) and arm_vel (8).
  void WriteObservation(const mjModel* model, const mjData* data, double* arm_pos,
                        double* arm_vel) const;

 private:
  std::array<int, kNumJoints> joints_{};
};

// dm_control's body_2d_pose: x, z, qw, qy of `body`.
void BodyPose2d(const mjData* data, int body, double* out);

}  // namespace envpool_core::dm_control
