#include "classic/png_image.h"

#include <zlib.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace envpool_core::classic {

namespace {

std::uint32_t BigEndian32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

// The Paeth predictor of PNG's filter type 4.
int Paeth(int a, int b, int c) {
  int p = a + b - c;
  int pa = std::abs(p - a);
  int pb = std::abs(p - b);
  int pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

}  // namespace

RgbaImage ReadRgbaPng(const std::string& path) {
  auto fail = [&path](const std::string& why) {
    return std::runtime_error("cannot read " + path + ": " + why);
  };
  std::ifstream file(path, std::ios::binary);
  if (!file) throw fail("no such file");
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                                        std::istreambuf_iterator<char>());
  constexpr std::array<std::uint8_t, 8> kSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() < kSignature.size() ||
      std::memcmp(bytes.data(), kSignature.data(), kSignature.size()) != 0) {
    throw fail("not a PNG file");
  }
  RgbaImage image;
  std::vector<std::uint8_t> compressed;
  std::size_t pos = kSignature.size();
  while (pos + 12 <= bytes.size()) {
    const std::uint32_t length = BigEndian32(&bytes[pos]);
    if (length > bytes.size() - pos - 12) throw fail("truncated chunk");
    const std::string type(reinterpret_cast<const char*>(&bytes[pos + 4]), 4);
    const std::uint8_t* data = &bytes[pos + 8];
    if (type == "IHDR") {
      if (length < 13) throw fail("bad IHDR");
      image.width = static_cast<int>(BigEndian32(data));
      image.height = static_cast<int>(BigEndian32(data + 4));
      // bit depth 8, colour type 6 (RGBA), no interlacing
      if (data[8] != 8 || data[9] != 6 || data[12] != 0) {
        throw fail("only non-interlaced 8-bit RGBA PNGs are read");
      }
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), data, data + length);
    } else if (type == "IEND") {
      break;
    }
    pos += 12 + length;
  }
  if (image.width <= 0 || image.height <= 0 || image.width > 4096 || image.height > 4096) {
    throw fail("bad image size");
  }
  const std::size_t stride = static_cast<std::size_t>(image.width) * 4;
  std::vector<std::uint8_t> filtered((stride + 1) * static_cast<std::size_t>(image.height));
  uLongf filtered_size = static_cast<uLongf>(filtered.size());
  if (uncompress(filtered.data(), &filtered_size, compressed.data(),
                 static_cast<uLong>(compressed.size())) != Z_OK ||
      filtered_size != filtered.size()) {
    throw fail("bad image data");
  }
  image.rgba.resize(stride * static_cast<std::size_t>(image.height));
  for (int y = 0; y < image.height; ++y) {
    const std::uint8_t* in = &filtered[(stride + 1) * static_cast<std::size_t>(y)];
    std::uint8_t* out = &image.rgba[stride * static_cast<std::size_t>(y)];
    const std::uint8_t* up = y > 0 ? out - stride : nullptr;
    const int filter = in[0];
    ++in;
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= 4 ? out[i - 4] : 0;
      const int b = up != nullptr ? up[i] : 0;
      const int c = i >= 4 && up != nullptr ? up[i - 4] : 0;
      int predicted = 0;
      switch (filter) {
        case 0: predicted = 0; break;
        case 1: predicted = a; break;
        case 2: predicted = b; break;
        case 3: predicted = (a + b) / 2; break;
        case 4: predicted = Paeth(a, b, c); break;
        default: throw fail("bad row filter");
      }
      out[i] = static_cast<std::uint8_t>(in[i] + predicted);
    }
  }
  return image;
}

}  // namespace envpool_core::classic
