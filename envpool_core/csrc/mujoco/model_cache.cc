#include "mujoco/model_cache.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

namespace envpool_core::mujoco {

namespace {
// Warnings MuJoCo's compiler emits while a model is loaded (say, deprecated
// attributes in a user's XML file). MuJoCo's default handler would append them
// to MUJOCO_LOG.TXT in the working directory; they go to stderr instead.
thread_local std::string* load_warnings = nullptr;  // set only in the loading thread
void CollectWarning(const char* msg) {
  if (load_warnings != nullptr) *load_warnings += std::string("\n  ") + msg;
}

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

std::shared_ptr<const mjModel> LoadModel(const std::string& path) {
  // Never evicted: a model is a few hundred KB and pools are made again and again.
  static std::mutex mutex;
  static auto* cache = new std::map<std::string, std::shared_ptr<const mjModel>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache->find(path);
  if (it != cache->end()) return it->second;
  char error[1024] = "";
  std::string warnings;
  load_warnings = &warnings;
  void (*previous_handler)(const char*) = mju_user_warning;
  mju_user_warning = CollectWarning;
  mjModel* model = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  mju_user_warning = previous_handler;
  load_warnings = nullptr;
  if (!warnings.empty()) {
    std::fprintf(stderr, "envpool_core: MuJoCo warnings while loading %s:%s\n", path.c_str(),
                 warnings.c_str());
  }
  if (model == nullptr) {
    throw std::invalid_argument("cannot load MuJoCo model " + path + ": " + error);
  }
  std::shared_ptr<const mjModel> shared(model, [](const mjModel* m) {
    mj_deleteModel(const_cast<mjModel*>(m));
  });
  cache->emplace(path, shared);
  return shared;
}

}  // namespace envpool_core::mujoco
