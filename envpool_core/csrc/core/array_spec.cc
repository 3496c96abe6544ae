#include "core/array_spec.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace envpool_core {

std::size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kBool:
    case DType::kUInt8:
      return 1;
    case DType::kInt32:
    case DType::kFloat32:
      return 4;
    case DType::kInt64:
    case DType::kFloat64:
      return 8;
  }
  return 0;
}

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "bool";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
  }
  return "?";
}

std::size_t ArraySpec::NumElements() const {
  std::size_t n = 1;
  for (int d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

void CheckActionValues(const ArraySpec& spec, const void* data, std::size_t count) {
  if (spec.dtype == DType::kInt32 && !spec.low.empty()) {
    const auto* a = static_cast<const std::int32_t*>(data);
    auto lo = static_cast<std::int32_t>(spec.low[0]), hi = static_cast<std::int32_t>(spec.high[0]);
    for (std::size_t i = 0; i < count; ++i) {
      if (a[i] < lo || a[i] > hi) {
        throw std::invalid_argument("action " + std::to_string(a[i]) + " is out of range [" +
                                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
      }
    }
  } else if (spec.dtype == DType::kFloat64 || spec.dtype == DType::kFloat32) {
    for (std::size_t i = 0; i < count; ++i) {
      double x = spec.dtype == DType::kFloat64 ? static_cast<const double*>(data)[i]
                                               : static_cast<const float*>(data)[i];
      if (!std::isfinite(x)) {
        throw std::invalid_argument("action contains a non-finite value (NaN or inf); "
                                    "continuous actions must be finite");
      }
    }
  }
}

namespace {
template <typename To, typename From>
void Convert(const void* src, void* dst, std::size_t count) {
  const auto* f = static_cast<const From*>(src);
  auto* t = static_cast<To*>(dst);
  for (std::size_t i = 0; i < count; ++i) t[i] = static_cast<To>(f[i]);
}
}  // namespace

void CopyElements(DType from, const void* src, DType to, void* dst, std::size_t count) {
  if (from == to) {
    std::memcpy(dst, src, count * DTypeSize(from));
  } else if (from == DType::kFloat32 && to == DType::kFloat64) {
    Convert<double, float>(src, dst, count);
  } else if (from == DType::kFloat64 && to == DType::kFloat32) {
    Convert<float, double>(src, dst, count);
  } else if (from == DType::kInt32 && to == DType::kInt64) {
    Convert<std::int64_t, std::int32_t>(src, dst, count);
  } else if (from == DType::kInt64 && to == DType::kInt32) {
    Convert<std::int32_t, std::int64_t>(src, dst, count);
  } else {
    throw std::invalid_argument(std::string("cannot convert ") + DTypeName(from) + " to " +
                                DTypeName(to));
  }
}

ArraySpec DiscreteActionSpec(int n) {
  return MakeArraySpec<std::int32_t>("action", {}, {0.0}, {static_cast<double>(n - 1)});
}

}  // namespace envpool_core
