#pragma once

#include <string>

#include "core/task_registry.h"

namespace envpool_core {

// Registers gymnasium's MuJoCo tasks (Ant, HalfCheetah, Hopper, Humanoid,
// HumanoidStandup, InvertedDoublePendulum, InvertedPendulum, Pusher, Reacher,
// Swimmer, Walker2d; each -v4 and -v5). Model XML files are read from
// `asset_dir` (gymnasium's envs/mujoco/assets) when a pool is made.
void RegisterMujocoTasks(TaskRegistry& registry, const std::string& asset_dir);

}  // namespace envpool_core
