// The camera gymnasium's MuJoCo tasks render from by default, so that
// render() shows the picture gymnasium's render_mode="rgb_array" shows.
//
// gymnasium's MujocoRenderer always uses a free camera: when its viewer is
// made (at the env's first render) it looks at the median of the geom
// positions from the model's extent, at MuJoCo's default azimuth and
// elevation, and then applies the task's default_camera_config. Its
// `trackbodyid` entries do nothing on a free camera, so none is kept here.
#pragma once

#include <mujoco/mujoco.h>

#include <array>
#include <optional>
#include <string>

namespace envpool_core::mujoco {

struct FreeCameraConfig {
  std::optional<double> distance;
  std::optional<std::array<double, 3>> lookat;
  std::optional<double> elevation;
};

// The default_camera_config of gymnasium's `task_id` (e.g. "Hopper-v5").
FreeCameraConfig GymnasiumCameraConfig(const std::string& task_id);

// Sets `camera` as gymnasium's renderer does on its first frame of state `d`:
// camera_id -1 is the free camera above, k >= 0 the model's fixed camera k.
void InitCamera(const mjModel* m, const mjData* d, const FreeCameraConfig& config, int camera_id,
                mjvCamera* camera);

}  // namespace envpool_core::mujoco
