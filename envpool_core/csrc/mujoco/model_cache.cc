#include "mujoco/model_cache.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "mujoco/mujoco_errors.h"

namespace envpool_core::mujoco {

namespace {
bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
}  // namespace

std::string ResolveXmlPath(const std::string& asset_dir, const std::string& xml_file) {
  if (xml_file.empty()) throw std::invalid_argument("xml_file must not be empty");
  std::string path;
  if (xml_file[0] == '/' || xml_file[0] == '.') {
    path = xml_file;
  } else if (xml_file[0] == '~') {
    const char* home = std::getenv("HOME");
    path = std::string(home != nullptr ? home : "") + xml_file.substr(1);
  } else {
    path = asset_dir + "/" + xml_file;
  }
  if (!FileExists(path)) {
    throw std::invalid_argument("xml_file '" + xml_file + "': file " + path + " does not exist");
  }
  return path;
}

namespace {

// Never evicted: a model is a few hundred KB and pools are made again and again.
std::mutex cache_mutex;
auto* cache = new std::map<std::string, std::shared_ptr<const mjModel>>();

// Loads `path` (from `vfs` if given) with the cache's lock held.
std::shared_ptr<const mjModel> LoadLocked(const std::string& key, const std::string& path,
                                          const mjVFS* vfs) {
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  // Warnings of MuJoCo's compiler (say, deprecated attributes in a user's XML
  // file) would go to MUJOCO_LOG.TXT in the working directory; they go to stderr.
  std::string warnings;
  ModelPtr model;
  std::string error;
  try {
    model = LoadXml(path.c_str(), &warnings, vfs);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  if (!warnings.empty()) {
    std::fprintf(stderr, "envpool_core: MuJoCo warnings while loading %s:\n%s\n", key.c_str(),
                 warnings.c_str());
  }
  if (!model) throw std::invalid_argument("cannot load MuJoCo model " + key + ": " + error);
  std::shared_ptr<const mjModel> shared(std::move(model));
  cache->emplace(key, shared);
  return shared;
}

}  // namespace

std::shared_ptr<const mjModel> LoadModel(const std::string& path) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  return LoadLocked(path, path, nullptr);
}

std::shared_ptr<const mjModel> LoadModelFromString(const std::string& key, const std::string& xml,
                                                   const std::map<std::string, std::string>& assets) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  if (cache->count(key) != 0) return cache->at(key);
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  // The name MuJoCo's Python bindings give the XML text in their file system.
  const char* name = "model_.xml";
  bool ok = mj_addBufferVFS(&vfs, name, xml.data(), static_cast<int>(xml.size())) == 0;
  for (const auto& [file, contents] : assets) {
    ok = ok && mj_addBufferVFS(&vfs, file.c_str(), contents.data(),
                               static_cast<int>(contents.size())) == 0;
  }
  try {
    if (!ok) throw std::runtime_error("cannot fill MuJoCo's virtual file system for " + key);
    auto model = LoadLocked(key, name, &vfs);
    mj_deleteVFS(&vfs);
    return model;
  } catch (...) {
    mj_deleteVFS(&vfs);
    throw;
  }
}

}  // namespace envpool_core::mujoco
