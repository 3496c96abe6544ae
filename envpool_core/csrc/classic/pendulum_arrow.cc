#include "classic/pendulum_arrow.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <utility>

namespace envpool_core::classic {

namespace {

// One line of pygame-ce's area-averaging shrink, as its SSE2 kernel computes
// it (smoothscale's filter on x86-64, and through sse2neon on ARM): 14-bit
// fixed-point weights in 16-bit lanes, which wrap and saturate as the
// kernel's do.
void ShrinkLine(const std::uint8_t* src, std::ptrdiff_t src_step, int src_count,
                std::uint8_t* dst, std::ptrdiff_t dst_step, int dst_count) {
  const int space = 0x4000 * src_count / dst_count;
  const auto recip = static_cast<std::uint16_t>(0x40000000 / space);
  auto mulhi = [](std::uint32_t a, std::uint32_t b) {
    return static_cast<std::uint16_t>((a * b) >> 16);
  };
  std::uint16_t accumulate = 0;
  int counter = space;
  int written = 0;
  for (int i = 0; i < src_count; ++i) {
    const std::uint16_t s = src[i * src_step];
    if (counter > 0x4000) {
      accumulate = static_cast<std::uint16_t>(accumulate + s);
      counter -= 0x4000;
      continue;
    }
    const int frac = 0x4000 - counter;
    const auto s4 = static_cast<std::uint16_t>(s << 2);
    auto out = static_cast<std::uint16_t>(mulhi(s4, static_cast<std::uint32_t>(counter)) +
                                          accumulate);
    accumulate = mulhi(s4, static_cast<std::uint32_t>(frac));
    out = mulhi(out, recip);
    // _mm_packus_epi16: a signed 16-bit lane saturated to 0..255.
    const auto lane = static_cast<std::int16_t>(out);
    if (written < dst_count) {
      dst[written * dst_step] =
          static_cast<std::uint8_t>(lane < 0 ? 0 : (lane > 255 ? 255 : lane));
    }
    ++written;
    counter = space - frac;
  }
}

// pygame's smoothscale of an RGBA image to side x side: rows first, then columns.
RgbaImage SmoothScale(const RgbaImage& image, int side) {
  RgbaImage rows;
  rows.width = side;
  rows.height = image.height;
  rows.rgba.assign(static_cast<std::size_t>(side) * image.height * 4, 0);
  for (int y = 0; y < image.height; ++y) {
    for (int c = 0; c < 4; ++c) {
      ShrinkLine(&image.rgba[(static_cast<std::size_t>(y) * image.width) * 4 + c], 4,
                 image.width, &rows.rgba[(static_cast<std::size_t>(y) * side) * 4 + c], 4, side);
    }
  }
  RgbaImage scaled;
  scaled.width = side;
  scaled.height = side;
  scaled.rgba.assign(static_cast<std::size_t>(side) * side * 4, 0);
  const std::ptrdiff_t row_step = static_cast<std::ptrdiff_t>(side) * 4;
  for (int x = 0; x < side; ++x) {
    for (int c = 0; c < 4; ++c) {
      ShrinkLine(&rows.rgba[static_cast<std::size_t>(x) * 4 + c], row_step, image.height,
                 &scaled.rgba[static_cast<std::size_t>(x) * 4 + c], row_step, side);
    }
  }
  return scaled;
}

std::mutex loaded_mutex;
std::shared_ptr<const PendulumArrow> loaded_arrow;

}  // namespace

PendulumArrow::PendulumArrow(const RgbaImage& image, double scale, double max_torque)
    : scale_(static_cast<float>(scale)) {
  // gymnasium computes the side in float32 (the torque is one), then truncates it.
  const auto max_side = static_cast<int>(scale_ * static_cast<float>(max_torque) / 2);
  by_side_.resize(static_cast<std::size_t>(max_side) + 1);
  // Only shrinking is reproduced (smoothscale's other filter enlarges): gymnasium's arrow,
  // 329 x 312, is drawn 113 pixels a side at most.
  for (int side = 1; side <= max_side; ++side) {
    by_side_[static_cast<std::size_t>(side)] =
        side < image.width && side < image.height ? SmoothScale(image, side) : RgbaImage{};
  }
}

void PendulumArrow::Draw(ClassicCanvas& canvas, int centre, float u) const {
  const float side_f = scale_ * std::fabs(u) / 2;
  if (!(side_f >= 1)) return;  // nothing to draw (NaN included)
  const auto side =
      static_cast<std::size_t>(std::min(side_f, static_cast<float>(by_side_.size() - 1)));
  const RgbaImage& image = by_side_[side];
  if (image.width == 0) return;
  // gymnasium flips the image upside down (and mirrors it for u > 0) before
  // it flips the whole picture: in the frame the image stands as drawn.
  const int left = centre - image.width / 2;
  const int top = centre - image.height / 2;
  const bool mirror = u > 0;
  for (int j = 0; j < image.height; ++j) {
    const int source_row = image.height - 1 - j;
    for (int i = 0; i < image.width; ++i) {
      const int source_col = mirror ? image.width - 1 - i : i;
      canvas.BlendRgba(left + i, top + j,
                       &image.rgba[(static_cast<std::size_t>(source_row) * image.width +
                                    static_cast<std::size_t>(source_col)) * 4]);
    }
  }
}

void PendulumArrow::Load(const std::string& assets_dir, double scale, double max_torque) {
  auto arrow = std::make_shared<const PendulumArrow>(ReadRgbaPng(assets_dir + "/clockwise.png"),
                                                     scale, max_torque);
  std::lock_guard<std::mutex> lock(loaded_mutex);
  loaded_arrow = std::move(arrow);
}

std::shared_ptr<const PendulumArrow> PendulumArrow::Loaded() {
  std::lock_guard<std::mutex> lock(loaded_mutex);
  return loaded_arrow;
}

}  // namespace envpool_core::classic
