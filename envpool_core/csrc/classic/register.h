#pragma once

#include <string>

#include "core/task_registry.h"

namespace envpool_core {

// Registers CartPole, Pendulum, MountainCar(+Continuous) and Acrobot tasks.
void RegisterClassicTasks(TaskRegistry& registry);

// Reads the images classic control's pictures use (Pendulum's arrow) from
// gymnasium's classic-control assets directory.
void LoadClassicControlAssets(const std::string& assets_dir);

}  // namespace envpool_core
