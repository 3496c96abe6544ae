// Checked lookups of a model's objects by name.
//
// A task finds its bodies, joints, sites, geoms and sensors by the names its
// model gives them. A model without one (a user's xml_file, or another version
// of dm_control's XML) would give mj_name2id's -1, an index out of bounds.
#pragma once

#include <mujoco/mujoco.h>

namespace envpool_core::mujoco {

// The id of the object of `type` named `name` in `m`; throws
// std::invalid_argument naming the model, the kind of object and the name when
// `m` has none (tasks look their objects up when an env is made, so make()
// raises it).
int NameId(const mjModel* m, mjtObj type, const char* name);

}  // namespace envpool_core::mujoco
