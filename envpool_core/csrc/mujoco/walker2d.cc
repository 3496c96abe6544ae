// Walker2d-v4 / Walker2d-v5 (gymnasium/envs/mujoco/walker2d_v4.py,
// walker2d_v5.py): a planar walker whose health is its torso's z and angle.
#include "mujoco/planar_walker.h"

namespace envpool_core::mujoco {

void RegisterWalker2d(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = PlanarWalkerTaskDef("Walker2d", v5, v5 ? "walker2d_v5.xml" : "walker2d.xml",
                                            TorsoRangeOptions(0.8, 2.0, -1.0, 1.0));
    def.make_env = EnvFactory<PlanarWalkerEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
