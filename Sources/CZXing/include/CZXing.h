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
    LK_ZX_AZTEC = 1 << 0,
    LK_ZX_CODABAR = 1 << 1,
    LK_ZX_CODE39 = 1 << 2,
    LK_ZX_CODE93 = 1 << 3,
    LK_ZX_CODE128 = 1 << 4,
    LK_ZX_DATABAR = 1 << 5,
    LK_ZX_DATABAR_EXPANDED = 1 << 6,
    LK_ZX_DATAMATRIX = 1 << 7,
    LK_ZX_EAN8 = 1 << 8,
    LK_ZX_EAN13 = 1 << 9,
    LK_ZX_ITF = 1 << 10,
    LK_ZX_PDF417 = 1 << 12,
    LK_ZX_QR = 1 << 13,
    LK_ZX_UPCA = 1 << 14,
    LK_ZX_UPCE = 1 << 15,
};

typedef struct lk_zx_code {
    int format;          // one LK_ZX_ bit
    int offset, length;  // the payload's place in the caller's byte buffer
    int x[4], y[4];      // corners: top-left, top-right, bottom-right, bottom-left of the symbol
} lk_zx_code;

// A part of the image to read, shrunk by 2x2 averaging first when `shrink` is 2 (for large
// symbols: a quarter of the work), enlarged 2x (bilinear) when it is -2 (for small ones). zxing-cpp 1.4 finds Aztec and DataMatrix symbols only about
// the middle of what it reads, so off-centre symbols are read in windows around them.
typedef struct lk_zx_region {
    int x, y, width, height;
    int shrink;
} lk_zx_region;

// Reads the codes of `formats` in an 8-bit gray image (stride in bytes), trying harder and
// rotated, in a helper process (a worker, below, for this one image). Payloads are the symbol's
// bytes; for a QR code with an ECI designator, its text in UTF-8 (as ZBar gives). Writes at most
// `capacity` codes and their payloads into `bytes`. Why another process: Debian's zxing-cpp 1.4 is
// built with its assertions on, and some images trip them (zxing-cpp issues 516 and 740: abort()
// in Result::operator== on linear codes), which would end the whole process. Past `timeout_ms`
// the helper is killed. Returns the count, -1 on error (no helper could be started), -2 when the
// helper died (an assertion: the image is skipped), -3 on timeout.
int lk_zxing_read_isolated(const unsigned char *gray, int width, int height, int stride, int formats,
                           lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity,
                           int timeout_ms, char *err, size_t err_len);

// The same over `regions` in turn (corners in the image's pixels; a code read in an earlier region
// is not added again), until `budget_ms` (0: no limit) has passed between two regions.
int lk_zxing_read_regions_isolated(const unsigned char *gray, int width, int height, int stride, int formats,
                                   const lk_zx_region *regions, int region_count, int budget_ms,
                                   lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity,
                                   int timeout_ms, char *err, size_t err_len);

// Up to `capacity` places in an 8-bit gray image that look like a 2-D symbol, densest first:
// blocks of `cell`-pixel cells with strong contrast and many transitions both across and down,
// filling at least half of their box, with a margin. For zxing-cpp 1.4, which reads an Aztec or
// DataMatrix symbol only about the middle of what it is given. Plain code, run in process.
int lk_zx_locate(const unsigned char *gray, int width, int height, int stride, int cell,
                 lk_zx_region *out, int capacity);

// A long-lived reader process: the helper program lookout-zxing (beside this program, in
// ../lib/lookout/ from it, or $LOOKOUT_ZXING_HELPER), started with posix_spawn (never a fork of this
// multithreaded process) and holding no descriptor of the parent's but its socket and image; fed
// each image through a shared memfd mapping and a request on a socketpair, its results sent back
// on it. A worker that dies on an image (an
// assertion), or runs past `timeout_ms` (then it is killed), costs that image only: the call
// returns -2 or -3, and the next call starts a new one. One caller at a time.
typedef struct lk_zx_worker lk_zx_worker;
lk_zx_worker *lk_zx_worker_create(void);
// Ends the worker process (if running) and frees everything; never leaves a zombie.
void lk_zx_worker_destroy(lk_zx_worker *worker);
// As lk_zxing_read_regions_isolated, in the worker; -1 when no worker could be started.
int lk_zx_worker_read(lk_zx_worker *worker, const unsigned char *gray, int width, int height, int stride, int formats,
                      const lk_zx_region *regions, int region_count, int budget_ms,
                      lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity,
                      int timeout_ms, char *err, size_t err_len);
// How many worker processes were started so far (the first and the restarts).
int lk_zx_worker_starts(const lk_zx_worker *worker);
// The running worker's process ID, -1 when none runs.
int lk_zx_worker_pid(const lk_zx_worker *worker);
// The start of the shared image mapping (its line in /proc/PID/maps), NULL before the first read.
const void *lk_zx_worker_image(const lk_zx_worker *worker);
// The helper program's main (Sources/LookoutZXingHelper): serves one worker, then returns its status.
int lk_zx_worker_main(int argc, char **argv);
// The helper program workers are started from (found once; see above).
const char *lk_zx_helper_path(void);

#ifdef __cplusplus
}
#endif

#endif
