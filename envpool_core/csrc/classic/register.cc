#include "classic/register.h"

#include "classic/cartpole.h"

namespace envpool_core {

void RegisterClassicTasks(TaskRegistry& registry) { classic::RegisterCartPole(registry); }

}  // namespace envpool_core
