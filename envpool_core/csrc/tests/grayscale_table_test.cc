// Unit test of the Atari grayscale (atari/image_ops.h, GrayscaleTable): every one
// of the 256 palette indices, odd ones (PAL screens) and 255 among them, with and
// without the max-pool, at lengths that end inside and on a vector block.
// The tests build it once per code path the CPU can run (scalar with SSE2's
// max-pool, SSSE3 and AVX2 byte shuffles) and tests/test_engine_stress.py runs
// each; it needs no ALE.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "atari/image_ops.h"
#include "tests/check.h"

using envpool_core::atari::GrayscaleTable;

namespace {

enum class Screen { kEven, kOneOdd, kAnyIndex };

std::vector<std::uint8_t> MakeScreen(std::size_t n, Screen kind, std::mt19937& rng) {
  std::vector<std::uint8_t> screen(n);
  for (auto& p : screen) p = static_cast<std::uint8_t>(rng());
  if (kind != Screen::kAnyIndex) {
    for (auto& p : screen) p &= 0xFE;  // an NTSC screen
  }
  if (kind == Screen::kOneOdd && n > 0) screen[n / 2] = 255;  // one odd index, the last one
  return screen;
}

}  // namespace

int main() {
  std::mt19937 rng(7);
  std::uint8_t gray[256];
  for (auto& g : gray) g = static_cast<std::uint8_t>(rng());
  const GrayscaleTable table(gray);
  // A 210 x 160 screen, block sizes and their neighbours, and an empty one.
  for (std::size_t n : {0, 1, 15, 16, 17, 31, 32, 33, 100, 33600}) {
    for (Screen kind : {Screen::kEven, Screen::kOneOdd, Screen::kAnyIndex}) {
      const std::vector<std::uint8_t> src = MakeScreen(n, kind, rng);
      std::vector<std::uint8_t> other(n), plain(n, 0xAB), pooled(n, 0xAB);
      for (auto& v : other) v = static_cast<std::uint8_t>(rng());
      table.Apply(src.data(), plain.data(), n);
      table.ApplyMax(src.data(), other.data(), pooled.data(), n);
      for (std::size_t i = 0; i < n; ++i) {
        ENVPOOL_CHECK(plain[i] == gray[src[i]]);
        ENVPOOL_CHECK(pooled[i] == std::max(gray[src[i]], other[i]));
      }
    }
  }
  std::printf("grayscale_table_test_%s: ok\n", ENVPOOL_CORE_GRAYSCALE_PATH);
  return 0;
}
