#ifndef LOOKOUT_CZXING_H
#define LOOKOUT_CZXING_H
// The extern "C" face of zxing-cpp (libzxing-dev), Lookout's second code decoder. No ZXing type
// crosses it.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Symbologies, as ZXing's BarcodeFormat bits (single bits by ZXing's own design, for C callers).
enum {
    LK_ZX_CODABAR = 1 << 1,
    LK_ZX_CODE39 = 1 << 2,
    LK_ZX_CODE93 = 1 << 3,
    LK_ZX_CODE128 = 1 << 4,
    LK_ZX_DATABAR = 1 << 5,
    LK_ZX_DATABAR_EXPANDED = 1 << 6,
    LK_ZX_EAN8 = 1 << 8,
    LK_ZX_EAN13 = 1 << 9,
    LK_ZX_ITF = 1 << 10,
    LK_ZX_QR = 1 << 13,
    LK_ZX_UPCA = 1 << 14,
    LK_ZX_UPCE = 1 << 15,
};

typedef struct lk_zx_code {
    int format;          // one LK_ZX_ bit
    int offset, length;  // the payload's place in the caller's byte buffer
    int x[4], y[4];      // corners: top-left, top-right, bottom-right, bottom-left of the symbol
} lk_zx_code;

// Reads the codes of `formats` in an 8-bit gray image (stride in bytes), trying harder and
// rotated, in a forked child. Payloads are the symbol's bytes; for a QR code with an ECI
// designator, its text in UTF-8 (as ZBar gives). Writes at most `capacity` codes and their payloads
// into `bytes`. Why a child: Debian's zxing-cpp 1.4 is built with its assertions on, and some
// images trip them (zxing-cpp issues 516 and 740: abort() in Result::operator== on linear codes),
// which would end the whole process. The child shares the image copy-on-write and sends the
// results through a pipe; past `timeout_ms` it is killed. Returns the count, -1 on error, -2 when
// the child died (an assertion: the image is skipped), -3 on timeout.
int lk_zxing_read_isolated(const unsigned char *gray, int width, int height, int stride, int formats,
                           lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity,
                           int timeout_ms, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
