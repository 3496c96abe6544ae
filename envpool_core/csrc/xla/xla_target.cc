#include "xla/xla_target.h"

#include <cstdint>
#include <unordered_map>

namespace envpool_core {

namespace {

std::mutex& RegistryMutex() {
  static std::mutex m;
  return m;
}

std::unordered_map<std::int64_t, std::weak_ptr<XlaTarget>>& Registry() {
  static std::unordered_map<std::int64_t, std::weak_ptr<XlaTarget>> r;
  return r;
}

}  // namespace

std::shared_ptr<XlaTarget> XlaTarget::Create(EnvPool* pool) {
  static std::int64_t next_id = 1;
  std::lock_guard<std::mutex> lock(RegistryMutex());
  std::shared_ptr<XlaTarget> target(new XlaTarget(next_id++, pool));
  Registry()[target->id_] = target;
  return target;
}

std::shared_ptr<XlaTarget> XlaTarget::Find(std::int64_t id) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Registry().find(id);
  return it == Registry().end() ? nullptr : it->second.lock();
}

XlaTarget::~XlaTarget() {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry().erase(id_);
}

void XlaTarget::Detach() {
  pool_ = nullptr;
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry().erase(id_);
}

}  // namespace envpool_core
