// Owners of MuJoCo's models and data: freed however the owner's scope ends
// (a later initialiser of the same object throwing included).
#pragma once

#include <mujoco/mujoco.h>

#include <memory>

namespace envpool_core::mujoco {

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};

using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;
using DataPtr = std::unique_ptr<mjData, DataDeleter>;

}  // namespace envpool_core::mujoco
