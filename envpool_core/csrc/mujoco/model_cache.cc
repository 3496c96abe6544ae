#include "mujoco/model_cache.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

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

std::shared_ptr<const mjModel> LoadModel(const std::string& path) {
  // Never evicted: a model is a few hundred KB and pools are made again and again.
  static std::mutex mutex;
  static auto* cache = new std::map<std::string, std::shared_ptr<const mjModel>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache->find(path);
  if (it != cache->end()) return it->second;
  char error[1024] = "";
  // Warnings of MuJoCo's compiler (say, deprecated attributes in a user's XML
  // file) would go to MUJOCO_LOG.TXT in the working directory; they go to stderr.
  std::string warnings;
  mjModel* model = LoadXmlCollectingWarnings(path.c_str(), error, sizeof(error), &warnings);
  if (!warnings.empty()) {
    std::fprintf(stderr, "envpool_core: MuJoCo warnings while loading %s:\n%s\n", path.c_str(),
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
