#ifndef LOOKOUT_CZXING_H
#define LOOKOUT_CZXING_H
// The extern "C" face of zxing-cpp 3 (built from its source release by scripts/zxing-cpp and
// linked in statically), Lookout's first code reader. No ZXing type crosses it.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Symbologies, as bits of Lookout's own (zxing-cpp 3 numbers its formats by AIM letters, not bits).
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

// How hard to look (zxing-cpp's ReaderOptions).
enum {
    LK_ZX_TRY_HARDER = 1 << 0,    // more scan lines, every binarizer's second chance
    LK_ZX_TRY_ROTATE = 1 << 1,    // linear codes turned by 90 degrees
    LK_ZX_TRY_INVERT = 1 << 2,    // light symbols on dark ground
    LK_ZX_TRY_DOWNSCALE = 1 << 3, // also at reduced scales (large symbols in large images)
    LK_ZX_TRY_TURN = 1 << 4,      // a region (shrink 1) that gave nothing, again turned upright by
                                  // its edges' lean: PDF417 rows at an angle (costs a copy of it)
    LK_ZX_GLOBAL_THRESHOLD = 1 << 5, // one threshold from the whole image's histogram instead of
                                     // local averages (zxing-cpp's GlobalHistogram binarizer)
    LK_ZX_TRY_RECTIFY = 1 << 6,   // a region (shrink 1) that still gave nothing, again with the
                                  // symbol in it stood square: its outline (the largest patch of
                                  // dense edges) as a rectangle at its angle, then as the corners
                                  // perspective left (PDF417 sheared or seen at a slant)
    LK_ZX_BINARY = 1 << 7,        // the image is black and white already (0 black, else white):
                                  // zxing-cpp sets no threshold of its own
};

typedef struct lk_zx_code {
    int format;          // one LK_ZX_ bit
    int offset, length;  // the payload's place in the caller's byte buffer
    int x[4], y[4];      // corners: top-left, top-right, bottom-right, bottom-left of the symbol
    char aim[4];         // the AIM symbology identifier (ISO/IEC 15424), e.g. "]Q1", NUL-ended
} lk_zx_code;

// A part of the image to read, shrunk by 2x2 averaging first when `shrink` is 2 (for large
// symbols: a quarter of the work), enlarged 2x (bilinear) when it is -2 (for small ones).
typedef struct lk_zx_region {
    int x, y, width, height;
    int shrink;
} lk_zx_region;

// Reads every code of `formats` in each of `regions` of an 8-bit gray image (stride in bytes), in
// this process, with `flags` (LK_ZX_TRY_...), until `budget_ms` (0: no limit) has passed between
// two regions; a code read again where an earlier region read it is not added twice, while the
// same code elsewhere in the image is. Payloads are the symbol's bytes (GS1's FNC1 separators as
// GS, 0x1D); for a code with an ECI designator, its text in UTF-8 (as ZBar gives). Writes at most
// `capacity` codes and their payloads into `bytes`; corners in the image's pixels. Returns the
// count, -1 when zxing-cpp failed (it threw: out of memory). Thread-safe; scratch memory is kept
// per thread.
int lk_zx_read(const unsigned char *gray, int width, int height, int stride, int formats, int flags,
               const lk_zx_region *regions, int region_count, int budget_ms,
               lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity);

// QR codes that lost one of their three finder patterns (to glare, a bright spot, a tear), which
// no reader finds: where two finders of one size lie a QR's side or diagonal apart and nothing is
// where the third must be, a copy of that part of the image with the third painted in is read
// with `flags`. Codes whose centre lies in one of the `known_count` quadrilaterals `known` (four
// corners, x and y each, in order) are not read again, and their finders start no search. Until
// `budget_ms` (0: no limit) has passed between two tries. Writes codes and payloads as lk_zx_read
// does (payload offsets into `bytes`); returns the count, -1 when none was read and zxing-cpp failed
// on a copy (it threw: out of memory). Thread-safe.
int lk_zx_read_repaired(const unsigned char *gray, int width, int height, int stride, int flags,
                        const int *known, int known_count, int budget_ms,
                        lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity);

// QR, Aztec, DataMatrix and PDF417 symbols (of `formats`) that zxing-cpp finds in the image but
// cannot decode: a matrix symbol's finders or bullseye and its format, or a PDF417's start, stop
// and row indicators, were read, but Reed-Solomon could not restore the data. A DataMatrix or QR
// symbol (also light on dark) is decoded again with the modules whose gray level is least sure
// taken as erasures: when that restores it, it is written into `restored` as lk_zx_read writes
// codes (payloads into `bytes`, its corners the found symbol's), up to `restored_capacity`, and
// counted in `restored_count`. Writes up to `capacity` other places (dark on light ground only),
// one a symbol however often it was found: its four corners into `quads` (x and y each, top-left,
// top-right, bottom-right, bottom-left of the symbol as it reads, in the image's pixels) and its
// LK_ZX_ bit into `found_formats`. Returns their count, -1 when zxing-cpp failed (it threw: out of
// memory). Thread-safe.
int lk_zx_find_undecoded(const unsigned char *gray, int width, int height, int stride, int formats,
                         int *quads, int *found_formats, int capacity,
                         lk_zx_code *restored, int restored_capacity, int *restored_count,
                         unsigned char *bytes, int bytes_capacity);

// Writes a copy of the part of an 8-bit gray image inside `quad` (four corners, x and y each, in
// the order lk_zx_find_undecoded gives them) re-sampled (bilinear) so that it stands as an
// upright rectangle as long as its sides, with `margin` (0 to under 0.5) of the copy's each side
// around it; outside the image, its border pixels repeat. Into `out` (tightly packed) when the
// copy fits `capacity` bytes. Writes its size into `copy_width` and `copy_height` and, into
// `homography`, the first eight terms (the ninth is 1) mapping a point of the copy (x, y) back
// into the image: ((h0 x + h1 y + h2) / w, (h3 x + h4 y + h5) / w), w = h6 x + h7 y + 1.
// Returns 0; 1 when `out` is NULL or the copy needs more than `capacity` bytes (its size written,
// nothing else); -1 for bad arguments, a margin out of range, a corner not finite, a quad whose
// longer side across and down is under 16 pixels, no homography, or a copy over 16 Mpx.
// Thread-safe.
int lk_zx_rectify(const unsigned char *gray, int width, int height, int stride, const float *quad, float margin,
                  unsigned char *out, int capacity, int *copy_width, int *copy_height, double *homography);

// What lk_zx_locate looks for.
enum {
    LK_ZX_PLACES_MATRIX = 0, // a 2-D matrix (QR, Aztec, DataMatrix): many transitions across and down
    LK_ZX_PLACES_ROWS = 1,   // rows of bars (PDF417, also leaning): many transitions at least one way
    LK_ZX_PLACES_ROWS_JOINED = 2, // places of rows leaning alike (3 degrees or more), in line and
                                  // near each other, joined: one symbol broken by glare
};

// Up to `capacity` places in an 8-bit gray image that look like a symbol of `kind`, densest
// first: blocks of `cell`-pixel cells with strong contrast and the kind's transitions, filling at
// least half of their box (a quarter for rows: a long code leaning fills 2/5 of it), with a margin.
int lk_zx_locate(const unsigned char *gray, int width, int height, int stride, int cell, int kind,
                 lk_zx_region *out, int capacity);

// The zxing-cpp version linked in, e.g. "3.1.1".
const char *lk_zx_version(void);

#ifdef __cplusplus
}
#endif

#endif
