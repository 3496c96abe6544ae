#include "classic/register.h"

#include "classic/acrobot.h"
#include "classic/cartpole.h"
#include "classic/continuous_mountain_car.h"
#include "classic/mountain_car.h"
#include "classic/pendulum.h"

namespace envpool_core {

void RegisterClassicTasks(TaskRegistry& registry) {
  classic::RegisterCartPole(registry);
  classic::RegisterPendulum(registry);
  classic::RegisterMountainCar(registry);
  classic::RegisterContinuousMountainCar(registry);
  classic::RegisterAcrobot(registry);
}

void LoadClassicControlAssets(const std::string& assets_dir) {
  classic::LoadPendulumArrow(assets_dir);
}

}  // namespace envpool_core
