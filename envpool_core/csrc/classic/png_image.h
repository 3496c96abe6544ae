// Reads a PNG file of 8-bit RGBA pixels (gymnasium's classic-control assets),
// with zlib, which the build already links.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace envpool_core::classic {

struct RgbaImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgba;  // height x width x 4, top row first
};

// Throws std::runtime_error naming the file for anything but a valid,
// non-interlaced, 8-bit RGBA PNG.
RgbaImage ReadRgbaPng(const std::string& path);

}  // namespace envpool_core::classic
