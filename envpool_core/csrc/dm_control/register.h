#pragma once

#include <string>

#include "core/task_registry.h"

namespace envpool_core {

// Registers the DeepMind Control Suite's tasks under EnvPool's ids
// (CheetahRun-v1, ...), reading their models from `suite_dir`, the suite
// folder of the installed dm_control package.
void RegisterDmControlTasks(TaskRegistry& registry, const std::string& suite_dir);

}  // namespace envpool_core
