#include "dm_control/planar_arm.h"
#include "mujoco/model_names.h"

#include <cmath>
#include <cstddef>

namespace envpool_core::dm_control {

namespace {

constexpr std::array<const char*, PlanarArm::kNumJoints> kJointNames = {
    "arm_root", "arm_shoulder", "arm_elbow", "arm_wrist", "finger", "fingertip", "thumb",
    "thumbtip"};
constexpr int kFinger = 4;
constexpr int kThumb = 6;

}  // namespace

PlanarArm::PlanarArm(const mjModel* model) {
  for (std::size_t j = 0; j < kJointNames.size(); ++j) {
    joints_[j] = mujoco::NameId(model, mjOBJ_JOINT, kJointNames[j]);
  }
}

void PlanarArm::RandomizeJoints(const mjModel* model, mjData* data,
                                NumpyRandomState& random) const {
  for (int joint : joints_) {
    bool limited = model->jnt_limited[joint];
    double low = limited ? model->jnt_range[2 * joint] : -M_PI;
    double high = limited ? model->jnt_range[2 * joint + 1] : M_PI;
    data->qpos[model->jnt_qposadr[joint]] = random.Uniform(low, high);
  }
  data->qpos[model->jnt_qposadr[joints_[kFinger]]] =
      data->qpos[model->jnt_qposadr[joints_[kThumb]]];
}

void PlanarArm::WriteObservation(const mjModel* model, const mjData* data, double* arm_pos,
                                 double* arm_vel) const {
  for (int joint : joints_) {
    double q = data->qpos[model->jnt_qposadr[joint]];
    *arm_pos++ = std::sin(q);
    *arm_pos++ = std::cos(q);
    *arm_vel++ = data->qvel[model->jnt_dofadr[joint]];
  }
}

void BodyPose2d(const mjData* data, int body, double* out) {
  out[0] = data->xpos[3 * body];
  out[1] = data->xpos[3 * body + 2];
  out[2] = data->xquat[4 * body];
  out[3] = data->xquat[4 * body + 2];
}

}  // namespace envpool_core::dm_control
