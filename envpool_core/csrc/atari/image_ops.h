// Image preprocessing of Atari frames: max-pool and downscaling.
//
// AreaResizer reproduces OpenCV's cv::resize(..., INTER_AREA) for 8-bit images
// bit for bit (same tables, same float operations in the same order, same
// rounding); LinearResizer follows OpenCV's fixed-point INTER_LINEAR. Both
// precompute their tables once and allocate nothing per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace envpool_core::atari {

// dst[i] = max(a[i], b[i]) for n bytes (dst may alias a or b).
void MaxPool(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* dst, std::size_t n);

// ALE screens to grayscale: palette index -> luminance byte, the values of ALE's
// ColourPalette::applyPaletteGrayscale (index p gives the low byte of entry p + 1
// of ALE's 256-entry palette), with byte shuffles (SSSE3/AVX2 builds) instead of
// one table load per pixel. NTSC games' screens hold even indices only (the TIA
// clears bit 0 of every colour), which the shuffles cover; PAL games (AirRaid)
// also show odd ones, and a screen with one is converted again pixel by pixel.
// Index 255 would read past ALE's palette (ale-py's own conversion does: it gives
// 0 there in ale-py's wheels, and AddressSanitizer stops it); its grayscale here
// is 0, given by the caller's table.
class GrayscaleTable {
 public:
  // gray[p]: the grayscale of palette index p, for all 256 indices.
  explicit GrayscaleTable(const std::uint8_t* gray);

  // dst[i] = gray(src[i]) for n pixels.
  void Apply(const std::uint8_t* src, std::uint8_t* dst, std::size_t n) const;
  // dst[i] = max(gray(src[i]), other[i]): grayscale and max-pool in one pass
  // (dst must not alias other: a screen with an odd index is converted twice).
  void ApplyMax(const std::uint8_t* src, const std::uint8_t* other, std::uint8_t* dst,
                std::size_t n) const;

 private:
  template <bool kMax>
  void Run(const std::uint8_t* src, const std::uint8_t* other, std::uint8_t* dst,
           std::size_t n) const;
  // Pixels [begin, end) one by one, any index.
  template <bool kMax>
  void RunScalar(const std::uint8_t* src, const std::uint8_t* other, std::uint8_t* dst,
                 std::size_t begin, std::size_t end) const;

  alignas(16) std::uint8_t even_[128];  // even_[k] = gray_[2k], for the shuffles
  std::uint8_t gray_[256];
};

// Downscales one channel of an interleaved 8-bit image like OpenCV's
// INTER_AREA. Requires dst_h <= src_h and dst_w <= src_w. Like OpenCV, it
// averages whole blocks of pixels in integers when both scales are integers
// (e.g. 250 x 160 to 125 x 80), and weighs fractional cells in floats otherwise.
class AreaResizer {
 public:
  AreaResizer(int src_h, int src_w, int dst_h, int dst_w);

  // `src`: src_h x src_w pixels of `channels` interleaved bytes; resizes
  // channel `channel` into the dst_h x dst_w plane `dst`.
  void Resize(const std::uint8_t* src, int channels, int channel, std::uint8_t* dst);

 private:
  // One source pixel's weight in a destination pixel (OpenCV's DecimateAlpha).
  struct Tap {
    int dst;
    int src;
    float alpha;
  };
  static std::vector<Tap> Table(int src_size, int dst_size, double scale);
  template <int kTaps>
  void HorizontalQuad(const float* q, float* hq) const;
  void ResizeBlocks(const std::uint8_t* src, int channels, int channel, std::uint8_t* dst) const;

  int src_h_, src_w_, dst_h_, dst_w_;
  // Integer scales (OpenCV's resizeAreaFast): each destination pixel is the
  // mean of a block_h_ x block_w_ block; 0 when the scales are not integers.
  int block_h_ = 0;
  int block_w_ = 0;
  std::vector<Tap> ytab_;
  // Horizontal taps in structure-of-arrays form, `x_taps_` per destination
  // column; absent taps have weight 0 (adding 0.0f leaves a sum unchanged).
  int x_taps_ = 0;
  std::vector<int> x_src_;      // [tap][dst_w]
  std::vector<float> x_alpha_;  // [tap][dst_w]
  std::vector<float> rowf_;   // four source rows as floats
  std::vector<float> quad_;   // the same, interleaved: [src_w][4]
  std::vector<float> hquad_;  // their horizontal pass, interleaved: [dst_w][4]
  std::vector<float> hrows_;  // every source row's horizontal pass: [src_h][dst_w]
  std::vector<float> sum_;    // the destination row being accumulated
};

// Downscales one channel like OpenCV's INTER_LINEAR on 8-bit images (11-bit
// fixed-point weights).
class LinearResizer {
 public:
  LinearResizer(int src_h, int src_w, int dst_h, int dst_w);
  void Resize(const std::uint8_t* src, int channels, int channel, std::uint8_t* dst);

 private:
  void HorizontalPass(const std::uint8_t* row, int channels, int channel, int* out) const;

  int src_h_, src_w_, dst_h_, dst_w_;
  std::vector<int> xofs_;            // left source column per destination column
  std::vector<std::int16_t> alpha_;  // 2 weights per destination column
  std::vector<int> yofs_;            // top source row per destination row
  std::vector<std::int16_t> beta_;   // 2 weights per destination row
  std::vector<int> row0_, row1_;     // horizontally resized source rows
};

}  // namespace envpool_core::atari
