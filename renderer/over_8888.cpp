// over_8888: pixman's OVER arithmetic (t = d × ia + 0x80; d' = s + (t + (t >> 8)) >> 8, saturated) with AVX2, a row's
// last pixels through a lane mask. pixman 0.42 composes this with SSE2, 4 pixels a step and the destination loaded,
// unpacked and stored per layer; 8 pixels a step halves the instructions of the CPU compositor's commonest operation
// (a translucent window over what is below it).
#include "renderer/over_8888.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kiln::renderer {
namespace {

#if defined(__x86_64__)
// Eight pixels of source-over: pixman's arithmetic on 16-bit lanes.
__attribute__((target("avx2"))) inline __m256i over8(__m256i sv, __m256i dv)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i round = _mm256_set1_epi16(0x80);
    const __m256i div255 = _mm256_set1_epi16(0x101);  // (t x 257) >> 16 == (t + (t >> 8)) >> 8 for these t
    __m256i ia = _mm256_sub_epi32(_mm256_set1_epi32(255), _mm256_srli_epi32(sv, 24));
    ia = _mm256_or_si256(ia, _mm256_slli_epi32(ia, 16));  // in both 16-bit halves of each pixel
    const __m256i ia_lo = _mm256_unpacklo_epi32(ia, ia);
    const __m256i ia_hi = _mm256_unpackhi_epi32(ia, ia);
    const __m256i d_lo = _mm256_unpacklo_epi8(dv, zero);
    const __m256i d_hi = _mm256_unpackhi_epi8(dv, zero);
    const __m256i t_lo = _mm256_mulhi_epu16(_mm256_adds_epu16(_mm256_mullo_epi16(d_lo, ia_lo), round), div255);
    const __m256i t_hi = _mm256_mulhi_epu16(_mm256_adds_epu16(_mm256_mullo_epi16(d_hi, ia_hi), round), div255);
    return _mm256_adds_epu8(sv, _mm256_packus_epi16(t_lo, t_hi));
}

__attribute__((target("avx2"))) void over_rows_avx2(uint32_t* dst, size_t dst_stride, const uint32_t* src,
                                                    size_t src_stride, int width, int height)
{
    const __m256i all_alpha = _mm256_set1_epi32(static_cast<int>(0xff000000u));
    // A row's last 1-7 pixels: one more step through a lane mask (masked-off lanes are neither read nor written).
    const int tail = width % 8;
    const __m256i tail_mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(tail), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (int y = 0; y < height; ++y) {
        uint32_t* d = dst + y * dst_stride;
        const uint32_t* s = src + y * src_stride;
        int i = 0;
        for (; i + 8 <= width; i += 8) {
            const __m256i sv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
            if (_mm256_testz_si256(sv, sv))
                continue;  // fully transparent: the destination stays
            if (_mm256_testc_si256(sv, all_alpha)) {
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), sv);  // fully opaque: the source
                continue;
            }
            const __m256i dv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d + i));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), over8(sv, dv));
        }
        if (tail) {
            const __m256i sv = _mm256_maskload_epi32(reinterpret_cast<const int*>(s + i), tail_mask);
            const __m256i dv = _mm256_maskload_epi32(reinterpret_cast<const int*>(d + i), tail_mask);
            _mm256_maskstore_epi32(reinterpret_cast<int*>(d + i), tail_mask, over8(sv, dv));
        }
    }
}
#endif

}  // namespace

bool over_8888_available()
{
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

bool over_8888(uint32_t* dst, size_t dst_stride, const uint32_t* src, size_t src_stride, int width, int height)
{
    if (!over_8888_available())
        return false;
    if (width <= 0 || height <= 0)
        return true;
#if defined(__x86_64__)
    over_rows_avx2(dst, dst_stride, src, src_stride, width, height);
    return true;
#else
    return false;
#endif
}

}  // namespace kiln::renderer
