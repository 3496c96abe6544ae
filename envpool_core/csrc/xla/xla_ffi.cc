// The typed-FFI handlers behind `xla()`: send and recv of one pool, on CPU.
//
// Both take the pool handle (uint8[8], the target id) as argument 0 and return
// it as result 0, aliased by the Python side, so that XLA orders the calls of a
// computation by their data dependence. recv copies each output column of the
// batch into its result buffer (XLA owns those; the Python API hands out views
// instead). Float64 and int64 columns and actions also accept float32/int32
// buffers, which is what JAX uses unless jax_enable_x64 is set. An env's
// failure is returned to JAX as an error, as every engine error is.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <utility>

#include "xla/ffi/api/ffi.h"
#include "xla/xla_target.h"

namespace ffi = xla::ffi;

namespace envpool_core {

namespace {

ffi::DataType FfiType(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return ffi::DataType::PRED;
    case DType::kUInt8:
      return ffi::DataType::U8;
    case DType::kInt32:
      return ffi::DataType::S32;
    case DType::kInt64:
      return ffi::DataType::S64;
    case DType::kFloat32:
      return ffi::DataType::F32;
    case DType::kFloat64:
      return ffi::DataType::F64;
  }
  return ffi::DataType::INVALID;
}

// The narrower type JAX uses for a 64-bit dtype when x64 is disabled.
ffi::DataType NarrowType(DType dtype) {
  if (dtype == DType::kFloat64) return ffi::DataType::F32;
  if (dtype == DType::kInt64) return ffi::DataType::S32;
  return FfiType(dtype);
}

ffi::Error Precondition(std::string message) {
  return ffi::Error(ffi::ErrorCode::kFailedPrecondition, std::move(message));
}

// The dtype of an XLA buffer of `type`, which FfiType() or NarrowType() of
// `dtype` gave.
DType BufferDType(ffi::DataType type, DType dtype) {
  if (type == FfiType(dtype)) return dtype;
  return dtype == DType::kFloat64 ? DType::kFloat32 : DType::kInt32;
}

// Reads the handle, checks it names `target` and echoes it to the result.
ffi::Error EchoHandle(std::int64_t pool_id, ffi::AnyBuffer handle,
                      ffi::Result<ffi::AnyBuffer> handle_out) {
  std::int64_t got = 0;
  if (handle.size_bytes() != sizeof(got)) {
    return ffi::Error::InvalidArgument("the handle must be the uint8[8] array xla() returned");
  }
  std::memcpy(&got, handle.untyped_data(), sizeof(got));
  if (got != pool_id) {
    return ffi::Error::InvalidArgument(
        "this handle belongs to another pool: pass the handle returned by this pool's xla()");
  }
  if (handle_out->untyped_data() != handle.untyped_data()) {
    std::memcpy(handle_out->untyped_data(), handle.untyped_data(), sizeof(got));
  }
  return ffi::Error::Success();
}

// Looks the target up and locks it; `*pool` is null (with an error) when the
// pool was destroyed or closed.
ffi::Error Lock(std::int64_t pool_id, std::shared_ptr<XlaTarget>* target,
                std::unique_lock<std::mutex>* lock, EnvPool** pool) {
  *target = XlaTarget::Find(pool_id);
  if (*target == nullptr) {
    return Precondition(
        "the pool behind this xla() function was garbage-collected");
  }
  *lock = std::unique_lock<std::mutex>((*target)->mutex());
  *pool = (*target)->pool();
  if (*pool == nullptr || (*pool)->closed()) {
    return Precondition("the pool behind this xla() function is closed");
  }
  return ffi::Error::Success();
}

ffi::Error SendImpl(std::int64_t pool_id, ffi::AnyBuffer handle, ffi::AnyBuffer action,
                    ffi::Buffer<ffi::S32> env_ids, ffi::Result<ffi::AnyBuffer> handle_out) {
  if (ffi::Error e = EchoHandle(pool_id, handle, handle_out); e.failure()) return e;
  std::shared_ptr<XlaTarget> target;
  std::unique_lock<std::mutex> lock;
  EnvPool* pool;
  if (ffi::Error e = Lock(pool_id, &target, &lock, &pool); e.failure()) return e;
  const ArraySpec& spec = pool->spec().action;
  auto n = static_cast<int>(env_ids.element_count());
  std::size_t count = spec.NumElements() * static_cast<std::size_t>(n);
  ffi::DataType type = action.element_type();
  if ((type != FfiType(spec.dtype) && type != NarrowType(spec.dtype)) ||
      action.element_count() != count) {
    return ffi::Error::InvalidArgument(std::string("action must hold ") + std::to_string(n) +
                                       " actions of dtype " + DTypeName(spec.dtype) +
                                       ", one per env_id");
  }
  try {
    pool->Send(action.untyped_data(), BufferDType(type, spec.dtype), env_ids.typed_data(), n);
  } catch (const EnvError& e) {
    return Precondition(e.what());
  } catch (const std::exception& e) {
    return ffi::Error::InvalidArgument(e.what());
  }
  return ffi::Error::Success();
}

ffi::Error RecvImpl(std::int64_t pool_id, ffi::AnyBuffer handle,
                    ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets outputs) {
  if (ffi::Error e = EchoHandle(pool_id, handle, handle_out); e.failure()) return e;
  std::shared_ptr<XlaTarget> target;
  std::unique_lock<std::mutex> lock;
  EnvPool* pool;
  if (ffi::Error e = Lock(pool_id, &target, &lock, &pool); e.failure()) return e;
  const BlockLayout& layout = pool->layout();
  if (outputs.size() != layout.columns.size()) {
    return ffi::Error::InvalidArgument("recv: wrong number of results for this pool");
  }
  OutputBlock* block;
  int rows;
  try {
    pool->CheckRecvPossible();
    while (!pool->WaitForBatch(std::chrono::milliseconds(50))) {
    }
    block = pool->TakeBatch(&rows);
  } catch (const std::exception& e) {
    return Precondition(e.what());
  }
  ffi::Error result = ffi::Error::Success();
  if (rows != pool->batch_size()) {
    result = Precondition(
        "recv under xla() returns batch_size rows, but only " + std::to_string(rows) +
        " envs were stepped: in sync mode send an action to every env");
  }
  for (std::size_t c = 0; c < layout.columns.size() && result.success(); ++c) {
    const ArraySpec& col = layout.columns[c];
    auto out = outputs.get<ffi::AnyBuffer>(c);
    if (!out.has_value()) {
      result = out.error();
      break;
    }
    std::size_t count = col.NumElements() * static_cast<std::size_t>(rows);
    ffi::DataType type = (*out)->element_type();
    if ((type != FfiType(col.dtype) && type != NarrowType(col.dtype)) ||
        (*out)->element_count() != count) {
      result = ffi::Error::InvalidArgument("recv: result " + col.name +
                                           " has the wrong shape or dtype");
      break;
    }
    CopyElements(col.dtype, block->column(static_cast<int>(c)), BufferDType(type, col.dtype),
                 (*out)->untyped_data(), count);
  }
  block->Release();
  return result;
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvpoolCoreXlaSend, SendImpl,
                              ffi::Ffi::Bind()
                                  .Attr<std::int64_t>("pool_id")
                                  .Arg<ffi::AnyBuffer>()          // handle
                                  .Arg<ffi::AnyBuffer>()          // action
                                  .Arg<ffi::Buffer<ffi::S32>>()   // env_id
                                  .Ret<ffi::AnyBuffer>());        // handle

XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvpoolCoreXlaRecv, RecvImpl,
                              ffi::Ffi::Bind()
                                  .Attr<std::int64_t>("pool_id")
                                  .Arg<ffi::AnyBuffer>()  // handle
                                  .Ret<ffi::AnyBuffer>()  // handle
                                  .RemainingRets());      // one per output column

void* XlaSendHandler() { return reinterpret_cast<void*>(EnvpoolCoreXlaSend); }
void* XlaRecvHandler() { return reinterpret_cast<void*>(EnvpoolCoreXlaRecv); }

}  // namespace envpool_core
