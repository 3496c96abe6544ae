// A Control Suite model as dm_control's Physics uses it: the compiled model,
// and a copy of it with actuation disabled.
//
// dm_control runs mj_forward with actuation disabled when an episode starts
// (Physics.reset and after_reset: `with model.disable('actuation')`). Envs
// share their model read-only, so rather than flipping the flag on the shared
// model each env runs that forward on the copy, which differs from the model
// in that flag only (an mjData works with either).
#pragma once

#include <mujoco/mujoco.h>

#include <memory>
#include <string>

namespace envpool_core::dm_control {

struct SuiteModel {
  std::shared_ptr<const mjModel> model;
  std::shared_ptr<const mjModel> without_actuation;
};

// The model in `path` (cached per path, thread-safe); throws
// std::invalid_argument when it cannot be loaded.
SuiteModel LoadSuiteModel(const std::string& path);

}  // namespace envpool_core::dm_control
