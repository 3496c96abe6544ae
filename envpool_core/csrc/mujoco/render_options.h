// The render options every MuJoCo-based task takes (render_width,
// render_height, render_camera_id, from_pixels, frame_stack), and what they do
// to the task's spec and env. The families differ only in their defaults: the
// frame size their reference renders and the name of the pixel observation.
#pragma once

#include <mujoco/mujoco.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/task_registry.h"

namespace envpool_core::mujoco {

struct RenderDefaults {
  int width;
  int height;
  std::string size_source;  // whose default the size is, for the option's help
  std::string free_camera;  // what render_camera_id -1 shows, for the option's help
  std::string pixels_name;  // the observation's name with from_pixels
};

void AddRenderOptions(const RenderDefaults& defaults, std::vector<OptionDef>* options);

// Sets the render shape and fps of a task on model `m`; with from_pixels, the
// observation becomes the stacked frames; without it, frame_stack stacks each state
// observation array. Throws std::invalid_argument for a camera the model lacks.
void SetRenderSpec(const Config& c, const mjModel& m, const RenderDefaults& defaults,
                   EnvSpec* spec);

// `env` as the pool gets it: itself, with from_pixels its PixelObservationEnv, or with
// frame_stack alone its StateStackEnv (`state_obs_bytes`: the size of each of the task's
// own observation arrays).
std::unique_ptr<Env> WithRenderOptions(std::unique_ptr<Env> env, const EnvSpec& spec,
                                       const std::vector<std::size_t>& state_obs_bytes);

}  // namespace envpool_core::mujoco
