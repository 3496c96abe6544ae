#include "mujoco/model_names.h"

#include <stdexcept>
#include <string>

namespace envpool_core::mujoco {

int NameId(const mjModel* m, mjtObj type, const char* name) {
  int id = mj_name2id(m, type, name);
  if (id < 0) {
    const char* kind = mju_type2Str(type);
    throw std::invalid_argument(std::string("MuJoCo model '") + m->names + "' has no " +
                                (kind != nullptr ? kind : "object") + " named '" + name +
                                "', which the task needs");
  }
  return id;
}

}  // namespace envpool_core::mujoco
