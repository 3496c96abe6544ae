#pragma once

#include "core/task_registry.h"

namespace envpool_core {

// Registers CartPole, Pendulum, MountainCar(+Continuous) and Acrobot tasks.
void RegisterClassicTasks(TaskRegistry& registry);

}  // namespace envpool_core
