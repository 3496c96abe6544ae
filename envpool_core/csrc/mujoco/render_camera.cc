#include "mujoco/render_camera.h"

#include <algorithm>
#include <map>
#include <vector>

namespace envpool_core::mujoco {

FreeCameraConfig GymnasiumCameraConfig(const std::string& task_id) {
  // DEFAULT_CAMERA_CONFIG of gymnasium 1.4's <task>_v4.py / _v5.py (less trackbodyid).
  static const std::map<std::string, FreeCameraConfig> kFamilies = {
      {"Ant", {4.0, std::nullopt, std::nullopt}},
      {"HalfCheetah", {4.0, std::nullopt, std::nullopt}},
      {"Hopper", {3.0, std::array<double, 3>{0.0, 0.0, 1.15}, -20.0}},
      {"Humanoid", {4.0, std::array<double, 3>{0.0, 0.0, 2.0}, -20.0}},
      {"HumanoidStandup", {4.0, std::array<double, 3>{0.0, 0.0, 0.8925}, -20.0}},
      {"InvertedDoublePendulum", {4.1225, std::array<double, 3>{0.0, 0.0, 0.12250000000000005},
                                  std::nullopt}},
      {"InvertedPendulum", {2.04, std::nullopt, std::nullopt}},
      {"Pusher", {4.0, std::nullopt, std::nullopt}},
      {"Reacher", {}},
      {"Walker2d", {4.0, std::array<double, 3>{0.0, 0.0, 1.15}, -20.0}},
  };
  // InvertedDoublePendulum-v5's constructor defaults default_camera_config to
  // None (its module's DEFAULT_CAMERA_CONFIG is unused); Swimmer has none.
  if (task_id == "InvertedDoublePendulum-v5") return {};
  auto it = kFamilies.find(task_id.substr(0, task_id.rfind("-v")));
  return it == kFamilies.end() ? FreeCameraConfig{} : it->second;
}

void InitCamera(const mjModel* m, const mjData* d, const FreeCameraConfig& config, int camera_id,
                mjvCamera* camera) {
  mjv_defaultCamera(camera);
  if (camera_id >= 0) {
    camera->type = mjCAMERA_FIXED;
    camera->fixedcamid = camera_id;
    return;
  }
  // np.median of each coordinate of geom_xpos.
  std::vector<mjtNum> values(static_cast<std::size_t>(m->ngeom));
  for (int axis = 0; axis < 3; ++axis) {
    for (int g = 0; g < m->ngeom; ++g) values[static_cast<std::size_t>(g)] = d->geom_xpos[3 * g + axis];
    std::sort(values.begin(), values.end());
    std::size_t n = values.size();
    camera->lookat[axis] = n == 0 ? 0.0
                           : n % 2 == 1 ? values[n / 2]
                                        : (values[n / 2 - 1] + values[n / 2]) / 2.0;
  }
  camera->distance = m->stat.extent;
  if (config.distance) camera->distance = *config.distance;
  if (config.lookat) {
    for (int axis = 0; axis < 3; ++axis) camera->lookat[axis] = (*config.lookat)[static_cast<std::size_t>(axis)];
  }
  if (config.elevation) camera->elevation = *config.elevation;
}

}  // namespace envpool_core::mujoco
