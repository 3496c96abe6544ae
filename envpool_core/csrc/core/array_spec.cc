#include "core/array_spec.h"

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

ArraySpec DiscreteActionSpec(int n) {
  return MakeArraySpec<std::int32_t>("action", {}, {0.0}, {static_cast<double>(n - 1)});
}

}  // namespace envpool_core
