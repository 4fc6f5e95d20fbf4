// Halving a luma plane: each output pixel the rounded mean of a 2x2 block. Own code rather than
// cv::resize, whose thread pool would wake for every frame; SSE2 (every x86-64) does 16 output
// pixels a step, a plain loop the rest and other CPUs.
#include "CPlanes.h"

#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

extern "C" void lk_half_scale(const unsigned char *gray, int width, int height, int stride, unsigned char *out) {
    const int half_width = width / 2, half_height = height / 2;
    for (int y = 0; y < half_height; y++) {
        const unsigned char *top = gray + (size_t)(2 * y) * stride;
        const unsigned char *bottom = top + stride;
        unsigned char *row = out + (size_t)y * half_width;
        int x = 0;
#if defined(__SSE2__)
        const __m128i low_bytes = _mm_set1_epi16(0x00FF), two = _mm_set1_epi16(2);
        for (; x + 16 <= half_width; x += 16) {
            __m128i means[2];
            for (int part = 0; part < 2; part++) {
                // 16 input pixels of each row as 8 pairs: even and odd bytes in 16-bit lanes.
                __m128i t = _mm_loadu_si128((const __m128i *)(top + 2 * x + 16 * part));
                __m128i b = _mm_loadu_si128((const __m128i *)(bottom + 2 * x + 16 * part));
                __m128i sum = _mm_add_epi16(_mm_add_epi16(_mm_and_si128(t, low_bytes), _mm_srli_epi16(t, 8)),
                                            _mm_add_epi16(_mm_and_si128(b, low_bytes), _mm_srli_epi16(b, 8)));
                means[part] = _mm_srli_epi16(_mm_add_epi16(sum, two), 2);
            }
            _mm_storeu_si128((__m128i *)(row + x), _mm_packus_epi16(means[0], means[1]));
        }
#endif
        for (; x < half_width; x++) {
            unsigned sum = (unsigned)top[2 * x] + top[2 * x + 1] + bottom[2 * x] + bottom[2 * x + 1];
            row[x] = (unsigned char)((sum + 2) >> 2);
        }
    }
}
