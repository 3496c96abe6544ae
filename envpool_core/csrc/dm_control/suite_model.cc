#include "dm_control/suite_model.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "mujoco/model_cache.h"
#include "mujoco/mujoco_errors.h"

namespace envpool_core::dm_control {

namespace {

std::mutex mutex;
auto* cache = new std::map<std::string, SuiteModel>();  // never evicted, as LoadModel's

// The model `load()` returns and its copy without actuation, cached under `key`.
SuiteModel WithoutActuationCopy(const std::string& key,
                                const std::function<std::shared_ptr<const mjModel>()>& load) {
  std::lock_guard<std::mutex> lock(mutex);
  const std::string& path = key;
  auto it = cache->find(path);
  if (it != cache->end()) return it->second;
  std::shared_ptr<const mjModel> model = load();
  mujoco::ModelPtr copy = mujoco::CopyModel(model.get());
  copy->opt.disableflags |= mjDSBL_ACTUATION;
  SuiteModel suite{model, std::shared_ptr<const mjModel>(std::move(copy))};
  cache->emplace(path, suite);
  return suite;
}

}  // namespace

SuiteModel LoadSuiteModel(const std::string& path) {
  return WithoutActuationCopy(path, [&path] { return mujoco::LoadModel(path); });
}

SuiteModel LoadSuiteModelFromXml(const std::string& key,
                                 const std::function<std::string()>& build_xml,
                                 const std::string& suite_dir, const std::string& asset_dir) {
  return WithoutActuationCopy(key, [&] {
    // common.ASSETS: the files the suite's models include, by the names they use.
    std::map<std::string, std::string> assets;
    for (const char* file :
         {"./common/materials.xml", "./common/skybox.xml", "./common/visual.xml"}) {
      assets[file] = ReadTextFile(suite_dir + "/" + file);
    }
    if (!asset_dir.empty()) {
      std::error_code error;
      for (const auto& entry :
           std::filesystem::directory_iterator(suite_dir + "/" + asset_dir, error)) {
        if (!entry.is_regular_file()) continue;
        assets[entry.path().filename().string()] = ReadTextFile(entry.path().string());
      }
      if (error) {
        throw std::invalid_argument("cannot list " + suite_dir + "/" + asset_dir + ": " +
                                    error.message());
      }
    }
    return mujoco::LoadModelFromString(key, build_xml(), assets);
  });
}

std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace envpool_core::dm_control
