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

// Staging owners are tagged in the low bit so the release callback can tell
// them from the Python objects the Python layer passes (both are aligned).
constexpr std::uintptr_t kStagingTag = 1;

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

void* XlaTarget::AcquireStaging(std::size_t bytes, std::uint8_t** data) {
  Staging* s;
  if (free_staging_.empty()) {
    staging_.push_back(std::make_unique<Staging>(Staging{this, {}}));
    s = staging_.back().get();
  } else {
    s = free_staging_.back();
    free_staging_.pop_back();
  }
  if (s->bytes.size() < bytes) s->bytes.resize(bytes);
  *data = s->bytes.data();
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(s) | kStagingTag);
}

bool XlaTarget::IsStagingOwner(void* owner) {
  return (reinterpret_cast<std::uintptr_t>(owner) & kStagingTag) != 0;
}

void XlaTarget::ReleaseStagingOwner(void* owner) {
  auto* s = reinterpret_cast<Staging*>(reinterpret_cast<std::uintptr_t>(owner) & ~kStagingTag);
  s->home->free_staging_.push_back(s);
}

}  // namespace envpool_core
