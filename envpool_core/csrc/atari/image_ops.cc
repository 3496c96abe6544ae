// Compiled with -ffp-contract=off: a fused multiply-add would round
// differently from OpenCV and break bit-exactness of the area resize.
#include "atari/image_ops.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif
#if defined(__AVX2__) || defined(__SSSE3__)
#include <immintrin.h>
#endif

namespace envpool_core::atari {

namespace {

// OpenCV's cvRound(float): round half to even (the FPU's default mode).
inline int RoundHalfEven(float x) {
#if defined(__SSE2__)
  return _mm_cvtss_si32(_mm_set_ss(x));
#else
  return static_cast<int>(std::nearbyint(x));
#endif
}

inline std::uint8_t SaturateU8(int v) {
  return static_cast<std::uint8_t>(std::clamp(v, 0, 255));
}

// dst[i] = saturate_cast<uint8_t>(src[i]) (cvRound, then clamp to 0..255).
void StoreRounded(const float* src, std::uint8_t* dst, std::size_t n) {
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 8 <= n; i += 8) {
    __m128i lo = _mm_cvtps_epi32(_mm_loadu_ps(src + i));  // rounds half to even
    __m128i hi = _mm_cvtps_epi32(_mm_loadu_ps(src + i + 4));
    __m128i w16 = _mm_packs_epi32(lo, hi);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + i), _mm_packus_epi16(w16, w16));
  }
#endif
  for (; i < n; ++i) dst[i] = SaturateU8(RoundHalfEven(src[i]));
}

// Interleaves four rows of n floats (rows[i * n + x]) into quad[4 * x + i].
void Transpose4(const float* rows, std::size_t n, float* quad) {
  std::size_t x = 0;
#if defined(__SSE2__)
  for (; x + 4 <= n; x += 4) {
    __m128 r0 = _mm_loadu_ps(rows + x), r1 = _mm_loadu_ps(rows + n + x);
    __m128 r2 = _mm_loadu_ps(rows + 2 * n + x), r3 = _mm_loadu_ps(rows + 3 * n + x);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(quad + 4 * x, r0);
    _mm_storeu_ps(quad + 4 * x + 4, r1);
    _mm_storeu_ps(quad + 4 * x + 8, r2);
    _mm_storeu_ps(quad + 4 * x + 12, r3);
  }
#endif
  for (; x < n; ++x) {
    for (std::size_t i = 0; i < 4; ++i) quad[4 * x + i] = rows[n * i + x];
  }
}

// The inverse: quad[4 * x + i] into rows[i * n + x].
void Untranspose4(const float* quad, std::size_t n, float* rows) {
  std::size_t x = 0;
#if defined(__SSE2__)
  for (; x + 4 <= n; x += 4) {
    __m128 r0 = _mm_loadu_ps(quad + 4 * x), r1 = _mm_loadu_ps(quad + 4 * x + 4);
    __m128 r2 = _mm_loadu_ps(quad + 4 * x + 8), r3 = _mm_loadu_ps(quad + 4 * x + 12);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(rows + x, r0);
    _mm_storeu_ps(rows + n + x, r1);
    _mm_storeu_ps(rows + 2 * n + x, r2);
    _mm_storeu_ps(rows + 3 * n + x, r3);
  }
#endif
  for (; x < n; ++x) {
    for (std::size_t i = 0; i < 4; ++i) rows[n * i + x] = quad[4 * x + i];
  }
}

void CheckSizes(const char* what, int src_h, int src_w, int dst_h, int dst_w) {
  if (src_h < 1 || src_w < 1 || dst_h < 1 || dst_w < 1 || dst_h > src_h || dst_w > src_w) {
    throw std::invalid_argument(std::string(what) + ": cannot resize " + std::to_string(src_h) +
                                "x" + std::to_string(src_w) + " to " + std::to_string(dst_h) +
                                "x" + std::to_string(dst_w) + " (only downscaling is supported)");
  }
}

}  // namespace

void MaxPool(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* dst, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = std::max(a[i], b[i]);
}

// --- Grayscale ---------------------------------------------------------------
//
// A 128-entry byte table of the even indices, looked up 16 or 32 pixels at a
// time: table k holds entries 16k..16k+15 and answers for the pixels whose
// index idx = src >> 1 falls in that range. pshufb returns 0 for a lane whose
// selector has bit 7 set; adds_epu8(idx - 16k, 0x70) keeps bit 7 clear exactly
// when 0 <= idx - 16k < 16 (low nibble idx - 16k), so OR-ing the eight lookups
// gives table[idx]. A screen with an odd index (bit 0 of some byte, moved to bit 7
// by the 16-bit shift and read by movemask) goes through the full table again:
// checking once per screen keeps the NTSC loop as tight as it was.

GrayscaleTable::GrayscaleTable(const std::uint8_t* gray) {
  std::copy(gray, gray + 256, gray_);
  for (int k = 0; k < 128; ++k) even_[k] = gray_[2 * k];
}

void GrayscaleTable::Apply(const std::uint8_t* src, std::uint8_t* dst, std::size_t n) const {
  Run<false>(src, nullptr, dst, n);
}

void GrayscaleTable::ApplyMax(const std::uint8_t* src, const std::uint8_t* other,
                              std::uint8_t* dst, std::size_t n) const {
  Run<true>(src, other, dst, n);
}

template <bool kMax>
void GrayscaleTable::RunScalar(const std::uint8_t* src, const std::uint8_t* other,
                               std::uint8_t* dst, std::size_t begin, std::size_t end) const {
  for (std::size_t i = begin; i < end; ++i) {
    std::uint8_t g = gray_[src[i]];
    if constexpr (kMax) g = std::max(g, other[i]);
    dst[i] = g;
  }
}

template <bool kMax>
void GrayscaleTable::Run(const std::uint8_t* src, const std::uint8_t* other, std::uint8_t* dst,
                         std::size_t n) const {
  std::size_t i = 0;
#if defined(__AVX2__)
  __m256i tables[8];
  for (int k = 0; k < 8; ++k) {
    tables[k] = _mm256_broadcastsi128_si256(
        _mm_load_si128(reinterpret_cast<const __m128i*>(even_ + 16 * k)));
  }
  const __m256i low7 = _mm256_set1_epi8(0x7F);
  const __m256i step = _mm256_set1_epi8(16);
  const __m256i bias = _mm256_set1_epi8(0x70);
  __m256i odd_lanes = _mm256_setzero_si256();
  for (; i + 32 <= n; i += 32) {
    __m256i s = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    odd_lanes = _mm256_or_si256(odd_lanes, s);
    __m256i idx = _mm256_and_si256(_mm256_srli_epi16(s, 1), low7);
    __m256i g = _mm256_setzero_si256();
    for (int k = 0; k < 8; ++k) {
      g = _mm256_or_si256(g, _mm256_shuffle_epi8(tables[k], _mm256_adds_epu8(idx, bias)));
      idx = _mm256_sub_epi8(idx, step);
    }
    if constexpr (kMax) {
      g = _mm256_max_epu8(g, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(other + i)));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), g);
  }
  if (_mm256_movemask_epi8(_mm256_slli_epi16(odd_lanes, 7)) != 0) {
    RunScalar<kMax>(src, other, dst, 0, i);  // an odd index somewhere: again, pixel by pixel
  }
#elif defined(__SSSE3__)
  __m128i tables[8];
  for (int k = 0; k < 8; ++k) {
    tables[k] = _mm_load_si128(reinterpret_cast<const __m128i*>(even_ + 16 * k));
  }
  const __m128i low7 = _mm_set1_epi8(0x7F);
  const __m128i step = _mm_set1_epi8(16);
  const __m128i bias = _mm_set1_epi8(0x70);
  __m128i odd_lanes = _mm_setzero_si128();
  for (; i + 16 <= n; i += 16) {
    __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    odd_lanes = _mm_or_si128(odd_lanes, s);
    __m128i idx = _mm_and_si128(_mm_srli_epi16(s, 1), low7);
    __m128i g = _mm_setzero_si128();
    for (int k = 0; k < 8; ++k) {
      g = _mm_or_si128(g, _mm_shuffle_epi8(tables[k], _mm_adds_epu8(idx, bias)));
      idx = _mm_sub_epi8(idx, step);
    }
    if constexpr (kMax) {
      g = _mm_max_epu8(g, _mm_loadu_si128(reinterpret_cast<const __m128i*>(other + i)));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), g);
  }
  if (_mm_movemask_epi8(_mm_slli_epi16(odd_lanes, 7)) != 0) {
    RunScalar<kMax>(src, other, dst, 0, i);  // an odd index somewhere: again, pixel by pixel
  }
#else
  if constexpr (kMax) {  // no byte shuffles: one lookup per pixel, then SSE2's max-pool
    RunScalar<false>(src, nullptr, dst, 0, n);
    MaxPool(dst, other, dst, n);
    return;
  }
#endif
  RunScalar<kMax>(src, other, dst, i, n);
}

// --- INTER_AREA ------------------------------------------------------------
//
// OpenCV (imgproc/src/resize.cpp, resizeArea_ with computeResizeAreaTab):
// every destination pixel is the area-weighted mean of the source pixels its
// cell covers. Rows are first reduced horizontally into a float buffer
// (buf[dx] += src * alpha, taps in increasing source order), then rows are
// accumulated vertically (sum = beta * buf for a destination row's first
// source row, sum += beta * buf after), and rounded with cvRound.
//
// When both scales are integers (within DBL_EPSILON of one, as OpenCV tests
// them), OpenCV takes another path (resizeAreaFast_): an integer sum over the
// block times the float 1.f / area, rounded with cvRound; for 2 x 2 blocks of
// 1, 3 or 4 channels it rounds half up instead, (sum + 2) >> 2. The two paths
// round differently, so both are reproduced.

std::vector<AreaResizer::Tap> AreaResizer::Table(int src_size, int dst_size, double scale) {
  std::vector<Tap> tab;
  for (int dx = 0; dx < dst_size; ++dx) {
    double fsx1 = dx * scale;
    double fsx2 = fsx1 + scale;
    double cell_width = std::min(scale, src_size - fsx1);
    int sx1 = static_cast<int>(std::ceil(fsx1));
    int sx2 = static_cast<int>(std::floor(fsx2));
    sx2 = std::min(sx2, src_size - 1);
    sx1 = std::min(sx1, sx2);
    if (sx1 - fsx1 > 1e-3) {
      tab.push_back({dx, sx1 - 1, static_cast<float>((sx1 - fsx1) / cell_width)});
    }
    for (int sx = sx1; sx < sx2; ++sx) {
      tab.push_back({dx, sx, static_cast<float>(1.0 / cell_width)});
    }
    if (fsx2 - sx2 > 1e-3) {
      tab.push_back({dx, sx2,
                     static_cast<float>(std::min(std::min(fsx2 - sx2, 1.0), cell_width) /
                                        cell_width)});
    }
  }
  return tab;
}

AreaResizer::AreaResizer(int src_h, int src_w, int dst_h, int dst_w)
    : src_h_(src_h), src_w_(src_w), dst_h_(dst_h), dst_w_(dst_w) {
  CheckSizes("area resize", src_h, src_w, dst_h, dst_w);
  // cv::resize derives the scale from the inverse ratio; keep its rounding
  // (210 to 2 rows gives 104.99999999999999: not an integer scale there).
  double scale_x = 1.0 / (static_cast<double>(dst_w) / src_w);
  double scale_y = 1.0 / (static_cast<double>(dst_h) / src_h);
  double iscale_x = std::nearbyint(scale_x);
  double iscale_y = std::nearbyint(scale_y);
  if (std::abs(scale_x - iscale_x) < DBL_EPSILON && std::abs(scale_y - iscale_y) < DBL_EPSILON) {
    block_w_ = static_cast<int>(iscale_x);
    block_h_ = static_cast<int>(iscale_y);
    return;
  }
  std::vector<Tap> xtab = Table(src_w, dst_w, scale_x);
  ytab_ = Table(src_h, dst_h, scale_y);

  std::vector<int> count(static_cast<std::size_t>(dst_w), 0);
  for (const Tap& t : xtab) ++count[static_cast<std::size_t>(t.dst)];
  x_taps_ = *std::max_element(count.begin(), count.end());
  x_src_.assign(static_cast<std::size_t>(x_taps_ * dst_w), 0);
  x_alpha_.assign(static_cast<std::size_t>(x_taps_ * dst_w), 0.0F);
  std::fill(count.begin(), count.end(), 0);
  for (const Tap& t : xtab) {
    auto d = static_cast<std::size_t>(t.dst);
    std::size_t k = static_cast<std::size_t>(count[d]++) * static_cast<std::size_t>(dst_w) + d;
    x_src_[k] = t.src;
    x_alpha_[k] = t.alpha;
  }
  // Absent taps read the destination column's first source pixel with weight 0.
  for (int k = 1; k < x_taps_; ++k) {
    for (int d = 0; d < dst_w; ++d) {
      if (count[static_cast<std::size_t>(d)] <= k) {
        x_src_[static_cast<std::size_t>(k * dst_w + d)] = x_src_[static_cast<std::size_t>(d)];
      }
    }
  }
  rowf_.assign(static_cast<std::size_t>(4 * src_w), 0.0F);
  quad_.assign(static_cast<std::size_t>(4 * src_w), 0.0F);
  hquad_.assign(static_cast<std::size_t>(4 * dst_w), 0.0F);
  hrows_.assign(static_cast<std::size_t>(src_h) * static_cast<std::size_t>(dst_w), 0.0F);
  sum_.assign(static_cast<std::size_t>(dst_w), 0.0F);
}

// hq[d][i] = sum over taps k of q[src_k(d)][i] * alpha_k(d), for four rows i,
// accumulated tap by tap from the first as OpenCV does (buf starts at 0 there;
// 0 + x == x exactly, so the first tap assigns). kTaps 0: x_taps_ at run time.
template <int kTaps>
void AreaResizer::HorizontalQuad(const float* q, float* hq) const {
  const int taps = kTaps > 0 ? kTaps : x_taps_;
  const std::size_t w = static_cast<std::size_t>(dst_w_);
  const int* xs = x_src_.data();
  const float* xa = x_alpha_.data();
  for (std::size_t d = 0; d < w; ++d) {
    const float* p = q + 4 * static_cast<std::size_t>(xs[d]);
    const float a = xa[d];
    float v[4];
    for (std::size_t i = 0; i < 4; ++i) v[i] = p[i] * a;
    for (int k = 1; k < taps; ++k) {
      std::size_t t = static_cast<std::size_t>(k) * w + d;
      const float* pk = q + 4 * static_cast<std::size_t>(xs[t]);
      const float ak = xa[t];
      for (std::size_t i = 0; i < 4; ++i) v[i] += pk[i] * ak;
    }
    for (std::size_t i = 0; i < 4; ++i) hq[4 * d + i] = v[i];
  }
}

void AreaResizer::ResizeBlocks(const std::uint8_t* src, int channels, int channel,
                               std::uint8_t* dst) const {
  const auto stride = static_cast<std::size_t>(channels);
  const std::size_t row_bytes = static_cast<std::size_t>(src_w_) * stride;
  const bool half_up =
      block_h_ == 2 && block_w_ == 2 && (channels == 1 || channels == 3 || channels == 4);
  const int area = block_h_ * block_w_;
  const float inv_area = 1.0F / static_cast<float>(area);
  for (int dy = 0; dy < dst_h_; ++dy) {
    const std::uint8_t* top = src + row_bytes * static_cast<std::size_t>(dy * block_h_) +
                              static_cast<std::size_t>(channel);
    std::uint8_t* out = dst + static_cast<std::size_t>(dy) * static_cast<std::size_t>(dst_w_);
    for (int dx = 0; dx < dst_w_; ++dx) {
      const std::uint8_t* block = top + static_cast<std::size_t>(dx * block_w_) * stride;
      int sum = 0;
      for (int y = 0; y < block_h_; ++y) {
        const std::uint8_t* row = block + row_bytes * static_cast<std::size_t>(y);
        for (int x = 0; x < block_w_; ++x) sum += row[static_cast<std::size_t>(x) * stride];
      }
      out[dx] = half_up ? static_cast<std::uint8_t>((sum + 2) >> 2)
                        : SaturateU8(RoundHalfEven(static_cast<float>(sum) * inv_area));
    }
  }
}

void AreaResizer::Resize(const std::uint8_t* src, int channels, int channel, std::uint8_t* dst) {
  if (block_h_ > 0) {
    ResizeBlocks(src, channels, channel, dst);
    return;
  }
  const std::size_t row_bytes = static_cast<std::size_t>(src_w_) * static_cast<std::size_t>(channels);
  const std::size_t w = static_cast<std::size_t>(dst_w_);
  const std::size_t sw = static_cast<std::size_t>(src_w_);
  float* q = quad_.data();
  float* hq = hquad_.data();
  float* h = hrows_.data();

  // Horizontal pass, four source rows at a time: each destination pixel gets
  // the same float operations in the same order as in OpenCV, on four rows
  // at once (interleaved, so the compiler keeps them in one vector).
  for (int r0 = 0; r0 < src_h_; r0 += 4) {
    for (int i = 0; i < 4; ++i) {
      const std::uint8_t* row =
          src + row_bytes * static_cast<std::size_t>(std::min(r0 + i, src_h_ - 1)) +
          static_cast<std::size_t>(channel);
      float* f = rowf_.data() + sw * static_cast<std::size_t>(i);
      if (channels == 1) {
        for (std::size_t x = 0; x < sw; ++x) f[x] = static_cast<float>(row[x]);
      } else {
        const auto stride = static_cast<std::size_t>(channels);
        for (std::size_t x = 0; x < sw; ++x) f[x] = static_cast<float>(row[x * stride]);
      }
    }
    Transpose4(rowf_.data(), sw, q);
    switch (x_taps_) {
      case 1: HorizontalQuad<1>(q, hq); break;
      case 2: HorizontalQuad<2>(q, hq); break;
      case 3: HorizontalQuad<3>(q, hq); break;
      case 4: HorizontalQuad<4>(q, hq); break;
      default: HorizontalQuad<0>(q, hq); break;
    }
    if (r0 + 4 <= src_h_) {
      Untranspose4(hq, w, h + w * static_cast<std::size_t>(r0));
    } else {
      for (int i = 0; r0 + i < src_h_; ++i) {
        float* out = h + w * static_cast<std::size_t>(r0 + i);
        for (std::size_t d = 0; d < w; ++d) out[d] = hq[4 * d + static_cast<std::size_t>(i)];
      }
    }
  }

  // Vertical pass, in OpenCV's order: a destination row's first source row
  // sets the sum, the others add to it.
  float* sum = sum_.data();
  int prev_dy = ytab_.front().dst;
  std::fill(sum, sum + w, 0.0F);
  for (const Tap& t : ytab_) {
    const float* buf = h + w * static_cast<std::size_t>(t.src);
    const float beta = t.alpha;
    if (t.dst != prev_dy) {
      StoreRounded(sum, dst + static_cast<std::size_t>(prev_dy) * w, w);
      for (std::size_t d = 0; d < w; ++d) sum[d] = beta * buf[d];
      prev_dy = t.dst;
    } else {
      for (std::size_t d = 0; d < w; ++d) sum[d] += beta * buf[d];
    }
  }
  StoreRounded(sum, dst + static_cast<std::size_t>(prev_dy) * w, w);
}

// --- INTER_LINEAR ----------------------------------------------------------
//
// OpenCV's 8-bit bilinear resize: source coordinate (d + 0.5) * scale - 0.5,
// weights rounded to 11 bits (2048), a horizontal pass into ints, then the
// vertical pass ((b0 * (r0 >> 4)) >> 16) + ((b1 * (r1 >> 4)) >> 16), rounded
// by 2 bits, as OpenCV's vectorized kernel computes it.

namespace {
constexpr int kCoefBits = 11;
constexpr int kCoefScale = 1 << kCoefBits;

inline std::int16_t CoefToFixed(float c) {
  return static_cast<std::int16_t>(
      std::clamp(RoundHalfEven(c * static_cast<float>(kCoefScale)), -32768, 32767));
}
}  // namespace

LinearResizer::LinearResizer(int src_h, int src_w, int dst_h, int dst_w)
    : src_h_(src_h), src_w_(src_w), dst_h_(dst_h), dst_w_(dst_w) {
  CheckSizes("bilinear resize", src_h, src_w, dst_h, dst_w);
  double scale_x = 1.0 / (static_cast<double>(dst_w) / src_w);
  double scale_y = 1.0 / (static_cast<double>(dst_h) / src_h);
  xofs_.resize(static_cast<std::size_t>(dst_w));
  alpha_.resize(static_cast<std::size_t>(2 * dst_w));
  for (int dx = 0; dx < dst_w; ++dx) {
    auto fx = static_cast<float>((dx + 0.5) * scale_x - 0.5);
    int sx = static_cast<int>(std::floor(fx));
    fx -= static_cast<float>(sx);
    if (sx < 0) fx = 0.0F, sx = 0;
    if (sx >= src_w - 1) fx = 0.0F, sx = src_w - 1;
    xofs_[static_cast<std::size_t>(dx)] = sx;
    alpha_[static_cast<std::size_t>(2 * dx)] = CoefToFixed(1.0F - fx);
    alpha_[static_cast<std::size_t>(2 * dx + 1)] = CoefToFixed(fx);
  }
  yofs_.resize(static_cast<std::size_t>(dst_h));
  beta_.resize(static_cast<std::size_t>(2 * dst_h));
  for (int dy = 0; dy < dst_h; ++dy) {
    auto fy = static_cast<float>((dy + 0.5) * scale_y - 0.5);
    int sy = static_cast<int>(std::floor(fy));
    fy -= static_cast<float>(sy);
    yofs_[static_cast<std::size_t>(dy)] = sy;
    beta_[static_cast<std::size_t>(2 * dy)] = CoefToFixed(1.0F - fy);
    beta_[static_cast<std::size_t>(2 * dy + 1)] = CoefToFixed(fy);
  }
  row0_.resize(static_cast<std::size_t>(dst_w));
  row1_.resize(static_cast<std::size_t>(dst_w));
}

void LinearResizer::HorizontalPass(const std::uint8_t* row, int channels, int channel,
                                   int* out) const {
  row += channel;
  for (int dx = 0; dx < dst_w_; ++dx) {
    int sx = xofs_[static_cast<std::size_t>(dx)];
    int a0 = alpha_[static_cast<std::size_t>(2 * dx)];
    int a1 = alpha_[static_cast<std::size_t>(2 * dx + 1)];
    // At the right border OpenCV uses the last pixel alone (weight 2048).
    int right = sx + 1 < src_w_ ? sx + 1 : sx;
    out[dx] = row[sx * channels] * a0 + row[right * channels] * a1;
  }
}

void LinearResizer::Resize(const std::uint8_t* src, int channels, int channel,
                           std::uint8_t* dst) {
  const std::size_t row_bytes = static_cast<std::size_t>(src_w_) * static_cast<std::size_t>(channels);
  int r0 = -1, r1 = -1;
  for (int dy = 0; dy < dst_h_; ++dy) {
    int sy = yofs_[static_cast<std::size_t>(dy)];
    int y0 = std::clamp(sy, 0, src_h_ - 1);
    int y1 = std::clamp(sy + 1, 0, src_h_ - 1);
    if (y0 != r0) {
      if (y0 == r1) {
        std::swap(row0_, row1_);
        r0 = r1;
        r1 = -1;
      } else {
        HorizontalPass(src + row_bytes * static_cast<std::size_t>(y0), channels, channel,
                       row0_.data());
        r0 = y0;
      }
    }
    if (y1 != r1) {
      HorizontalPass(src + row_bytes * static_cast<std::size_t>(y1), channels, channel,
                     row1_.data());
      r1 = y1;
    }
    int b0 = beta_[static_cast<std::size_t>(2 * dy)];
    int b1 = beta_[static_cast<std::size_t>(2 * dy + 1)];
    std::uint8_t* out = dst + static_cast<std::size_t>(dy) * static_cast<std::size_t>(dst_w_);
    for (int dx = 0; dx < dst_w_; ++dx) {
      int v = ((b0 * (row0_[static_cast<std::size_t>(dx)] >> 4)) >> 16) +
              ((b1 * (row1_[static_cast<std::size_t>(dx)] >> 4)) >> 16);
      out[dx] = SaturateU8((v + 2) >> 2);
    }
  }
}

}  // namespace envpool_core::atari
