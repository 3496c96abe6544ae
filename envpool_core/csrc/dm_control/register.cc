#include "dm_control/register.h"

#include "dm_control/suite_task.h"

namespace envpool_core {

void RegisterDmControlTasks(TaskRegistry& registry, const std::string& suite_dir) {
  dm_control::RegisterAcrobot(registry, suite_dir);
  dm_control::RegisterBallInCup(registry, suite_dir);
  dm_control::RegisterCartpole(registry, suite_dir);
  dm_control::RegisterCheetah(registry, suite_dir);
  dm_control::RegisterDog(registry, suite_dir);
  dm_control::RegisterFinger(registry, suite_dir);
  dm_control::RegisterFish(registry, suite_dir);
  dm_control::RegisterHopper(registry, suite_dir);
  dm_control::RegisterHumanoid(registry, suite_dir);
  dm_control::RegisterHumanoidCMU(registry, suite_dir);
  dm_control::RegisterLqr(registry, suite_dir);
  dm_control::RegisterManipulator(registry, suite_dir);
  dm_control::RegisterPendulum(registry, suite_dir);
  dm_control::RegisterPointMass(registry, suite_dir);
  dm_control::RegisterQuadruped(registry, suite_dir);
  dm_control::RegisterReacher(registry, suite_dir);
  dm_control::RegisterStacker(registry, suite_dir);
  dm_control::RegisterSwimmer(registry, suite_dir);
  dm_control::RegisterWalker(registry, suite_dir);
}

}  // namespace envpool_core
