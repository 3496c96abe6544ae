#include "dm_control/randomizers.h"

#include <cmath>

namespace envpool_core::dm_control {

namespace {

// x / np.linalg.norm(x) for a short vector (a dot product accumulated with
// fused multiply-adds, as numpy's; see SuiteEnv::Norm).
void Normalize(double* x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s = std::fma(x[i], x[i], s);
  double norm = std::sqrt(s);
  for (int i = 0; i < n; ++i) x[i] /= norm;
}

// random_limited_quaternion: a rotation about a random axis by rand() * limit.
void RandomLimitedQuaternion(NumpyRandomState* random, double limit, double* quat) {
  double axis[3];
  for (double& a : axis) a = random->StandardNormal();
  Normalize(axis, 3);
  double angle = random->RandomSample() * limit;
  mju_axisAngle2Quat(quat, axis, angle);
}

}  // namespace

void RandomizeLimitedAndRotationalJoints(const mjModel* m, mjData* d, NumpyRandomState* random) {
  for (int j = 0; j < m->njnt; ++j) {
    double* qpos = d->qpos + m->jnt_qposadr[j];
    int type = m->jnt_type[j];
    double range_min = m->jnt_range[2 * j];
    double range_max = m->jnt_range[2 * j + 1];
    if (m->jnt_limited[j]) {
      if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
        qpos[0] = random->Uniform(range_min, range_max);
      } else if (type == mjJNT_BALL) {
        RandomLimitedQuaternion(random, range_max, qpos);
      }
    } else if (type == mjJNT_HINGE) {
      qpos[0] = random->Uniform(-M_PI, M_PI);
    } else if (type == mjJNT_BALL) {
      for (int i = 0; i < 4; ++i) qpos[i] = random->StandardNormal();
      Normalize(qpos, 4);
    } else if (type == mjJNT_FREE) {
      for (int i = 3; i < 7; ++i) qpos[i] = random->RandomSample();
      Normalize(qpos + 3, 4);
    }
  }
}

}  // namespace envpool_core::dm_control
