// Parsed MuJoCo models, loaded once per process and shared by every env that
// uses the same XML file.
//
// Parsing an XML model takes milliseconds; a pool of thousands of envs would
// spend seconds on it. The model is read-only during simulation (mj_step takes
// `const mjModel*`), so all envs of all pools share one immutable copy and each
// env owns only its mjData.
#pragma once

#include <mujoco/mujoco.h>

#include <map>
#include <memory>
#include <string>

namespace envpool_core::mujoco {

// Resolves `xml_file` as gymnasium does: a path starting with '/' or '.' is used
// as is, '~' is expanded, anything else is a file in `asset_dir`. Throws
// std::invalid_argument when the file does not exist.
std::string ResolveXmlPath(const std::string& asset_dir, const std::string& xml_file);

// The model parsed from `path` (cached; thread-safe). Throws
// std::invalid_argument with MuJoCo's message when the file cannot be loaded.
std::shared_ptr<const mjModel> LoadModel(const std::string& path);

// The model of the XML text `xml`, whose includes are read from `assets`
// (file name as the XML names it -> contents), as MuJoCo's Python bindings
// load MjModel.from_xml_string(xml, assets): all in a virtual file system.
// Cached under `key` (a model built from a file by the caller's edits).
std::shared_ptr<const mjModel> LoadModelFromString(const std::string& key, const std::string& xml,
                                                   const std::map<std::string, std::string>& assets);

}  // namespace envpool_core::mujoco
