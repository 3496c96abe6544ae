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

#include <functional>
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

// The model of the XML text `build_xml()` returns, a task's edit of a suite
// file (dm_control's Physics.from_xml_string(xml, common.ASSETS)): its includes
// are the suite's common files, read from `suite_dir`, and, with `asset_dir`
// (a folder of `suite_dir`, as dog's "dog_assets"), every file in that folder
// by its name (dm_control's get_model_and_assets). Cached under `key`: built
// once per process.
SuiteModel LoadSuiteModelFromXml(const std::string& key,
                                 const std::function<std::string()>& build_xml,
                                 const std::string& suite_dir,
                                 const std::string& asset_dir = "");

// The text of a file (a suite model to edit); throws std::invalid_argument
// when it cannot be read.
std::string ReadTextFile(const std::string& path);

}  // namespace envpool_core::dm_control
