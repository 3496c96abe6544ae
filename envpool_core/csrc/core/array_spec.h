// Shapes, dtypes and bounds of the arrays an environment reads and writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace envpool_core {

enum class DType : std::uint8_t { kBool, kUInt8, kInt32, kInt64, kFloat32, kFloat64 };

std::size_t DTypeSize(DType dtype);
const char* DTypeName(DType dtype);  // numpy spelling: "bool", "uint8", ...

template <typename T>
constexpr DType DTypeOf();
template <>
constexpr DType DTypeOf<bool>() { return DType::kBool; }
template <>
constexpr DType DTypeOf<std::uint8_t>() { return DType::kUInt8; }
template <>
constexpr DType DTypeOf<std::int32_t>() { return DType::kInt32; }
template <>
constexpr DType DTypeOf<std::int64_t>() { return DType::kInt64; }
template <>
constexpr DType DTypeOf<float>() { return DType::kFloat32; }
template <>
constexpr DType DTypeOf<double>() { return DType::kFloat64; }

// One array of a single environment (no batch dimension). `low`/`high` are
// empty (unbounded), one value (same bound everywhere) or one value per element.
struct ArraySpec {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int> shape;
  std::vector<double> low;
  std::vector<double> high;

  std::size_t NumElements() const;
  std::size_t NumBytes() const { return NumElements() * DTypeSize(dtype); }
};

template <typename T>
ArraySpec MakeArraySpec(std::string name, std::vector<int> shape, std::vector<double> low = {},
                        std::vector<double> high = {}) {
  return ArraySpec{std::move(name), DTypeOf<T>(), std::move(shape), std::move(low),
                   std::move(high)};
}

// Throws std::invalid_argument for an action batch (`count` elements laid out
// as `spec`) that is out of the discrete range or not finite: a bad action is
// reported instead of silently corrupting an env.
void CheckActionValues(const ArraySpec& spec, const void* data, std::size_t count);

// Copies `count` elements of dtype `from` at `src` to `dst` as dtype `to`:
// the same dtype, or float32 <-> float64, int32 <-> int64 (what JAX uses for a
// 64-bit dtype without jax_enable_x64). Throws std::invalid_argument for other
// pairs.
void CopyElements(DType from, const void* src, DType to, void* dst, std::size_t count);

// A discrete action in [0, n): int32 scalar.
ArraySpec DiscreteActionSpec(int n);

}  // namespace envpool_core
