// dm_control's suite/utils/randomizers.py: random start poses from the joints'
// ranges, drawn in dm_control's order from the task's RandomState.
#pragma once

#include <mujoco/mujoco.h>

#include "dm_control/numpy_random.h"

namespace envpool_core::dm_control {

// randomize_limited_and_rotational_joints: for each joint in model order,
// limited hinges and slides uniform in their range, limited balls a quaternion
// within their range, unlimited hinges uniform in [-pi, pi], unlimited balls
// uniform on the unit sphere, free joints' orientation from rand(4) normalised
// (dm_control's own choice); free joints' positions and unlimited slides stay.
void RandomizeLimitedAndRotationalJoints(const mjModel* m, mjData* d, NumpyRandomState* random);

}  // namespace envpool_core::dm_control
