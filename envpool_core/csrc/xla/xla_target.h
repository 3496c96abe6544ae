// A pool as XLA computations see it: the target of envpool_core's FFI calls.
//
// `xla()` in Python calls two typed-FFI handlers (send and recv, exported as
// capsules by bindings.cc). Each call carries the target's id as an attribute;
// the handlers look the target up in a registry, so a compiled computation
// that outlives its pool gets an error instead of a dangling pointer.
//
// XLA runs the handlers on its own threads, without the GIL. The target's
// mutex serialises them with the Python calls of the same pool (bindings.cc
// takes it around every engine call once xla() was used), which the engine
// requires (one caller at a time). XLA owns the action buffer only for the
// duration of the send call, which is all the engine needs: Send() copies.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "core/env_pool.h"

namespace envpool_core {

class XlaTarget {
 public:
  // Registers a target for `pool` (which must outlive Detach()).
  static std::shared_ptr<XlaTarget> Create(EnvPool* pool);
  // The registered target with this id, or null when its pool is gone.
  static std::shared_ptr<XlaTarget> Find(std::int64_t id);

  ~XlaTarget();
  XlaTarget(const XlaTarget&) = delete;
  XlaTarget& operator=(const XlaTarget&) = delete;

  std::int64_t id() const { return id_; }
  std::mutex& mutex() { return mutex_; }
  // With mutex() held: the pool, or null once Detach() was called.
  EnvPool* pool() const { return pool_; }
  // With mutex() held: forgets the pool (its owner is destroying it).
  void Detach();

 private:
  XlaTarget(std::int64_t id, EnvPool* pool) : id_(id), pool_(pool) {}

  std::int64_t id_;
  EnvPool* pool_;
  std::mutex mutex_;
};

// The FFI handlers (XLA_FFI_Handler*), for jax.ffi.register_ffi_target.
void* XlaSendHandler();
void* XlaRecvHandler();

}  // namespace envpool_core
