#include "mujoco/register.h"

#include "mujoco/mujoco_env.h"

namespace envpool_core {

void RegisterMujocoTasks(TaskRegistry& registry, const std::string& asset_dir) {
  mujoco::RegisterAnt(registry, asset_dir);
  mujoco::RegisterHalfCheetah(registry, asset_dir);
  mujoco::RegisterHopper(registry, asset_dir);
  mujoco::RegisterHumanoid(registry, asset_dir);
  mujoco::RegisterHumanoidStandup(registry, asset_dir);
  mujoco::RegisterInvertedDoublePendulum(registry, asset_dir);
  mujoco::RegisterInvertedPendulum(registry, asset_dir);
  mujoco::RegisterPusher(registry, asset_dir);
  mujoco::RegisterReacher(registry, asset_dir);
  mujoco::RegisterSwimmer(registry, asset_dir);
  mujoco::RegisterWalker2d(registry, asset_dir);
}

}  // namespace envpool_core
