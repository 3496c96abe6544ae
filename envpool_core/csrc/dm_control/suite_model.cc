#include "dm_control/suite_model.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include "mujoco/model_cache.h"

namespace envpool_core::dm_control {

SuiteModel LoadSuiteModel(const std::string& path) {
  static std::mutex mutex;
  static auto* cache = new std::map<std::string, SuiteModel>();  // never evicted, as LoadModel's
  std::shared_ptr<const mjModel> model = mujoco::LoadModel(path);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache->find(path);
  if (it != cache->end()) return it->second;
  mjModel* copy = mj_copyModel(nullptr, model.get());
  if (copy == nullptr) throw std::runtime_error("mj_copyModel failed (out of memory?)");
  copy->opt.disableflags |= mjDSBL_ACTUATION;
  SuiteModel suite{model, std::shared_ptr<const mjModel>(copy, [](const mjModel* m) {
                     mj_deleteModel(const_cast<mjModel*>(m));
                   })};
  cache->emplace(path, suite);
  return suite;
}

}  // namespace envpool_core::dm_control
