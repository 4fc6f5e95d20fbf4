#ifndef LOOKOUT_COPENCV_H
#define LOOKOUT_COPENCV_H
// The extern "C" face of the few OpenCV features Lookout uses. No OpenCV type crosses it.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lk_cascade lk_cascade;

typedef struct lk_rect {
    int x, y, width, height;
} lk_rect;

typedef struct lk_cascade_params {
    double scale_factor;   // > 1; e.g. 1.1
    int min_neighbors;     // >= 0
    int min_width, min_height;   // in pixels of the image passed in
    int max_width, max_height;   // 0 = no limit
    int analysis_width;    // downscale to at most this width before detecting; 0 = never
    int threads;           // OpenCV worker threads for the detection; 0 = OpenCV's default
    int verify_min_neighbors; // > 0: each candidate must pass the verifier with this many hits
    int profile_min_neighbors; // > 0: a candidate the verifier refused may pass the profile cascade instead
    // > 0: the verifier also searches the whole image, and a face it finds where the first cascade
    // found nothing is kept when the first cascade, searched around it, gives this many hits.
    int join_min_neighbors;
    // Faces verified before (the last analysis's, in the caller's pixels): a candidate overlapping
    // one (IoU > 0.3) is that face again and skips the verifier. May be NULL.
    const lk_rect *trusted;
    int trusted_count;
} lk_cascade_params;

// Loads a Haar cascade XML. On failure returns NULL and writes a message into err.
lk_cascade *lk_cascade_open(const char *path, char *err, size_t err_len);
void lk_cascade_close(lk_cascade *cascade);

// Loads a second cascade that candidates must also pass (lk_cascade_params.verify_min_neighbors).
// Returns 0, or -1 with a message (possibly empty) in err.
int lk_cascade_set_verifier(lk_cascade *cascade, const char *path, char *err, size_t err_len);

// Loads a profile-face cascade that may confirm, in either orientation, a candidate the verifier
// refused (lk_cascade_params.profile_min_neighbors). Returns 0, or -1 with a message in err.
int lk_cascade_set_profile_verifier(lk_cascade *cascade, const char *path, char *err, size_t err_len);

// A face detector's cascades (frontal, and the verifier and profile cascades when not NULL), loaded
// once for every detector with the same files: the set holds the files open, and each thread that
// detects with it gets its own parsed copy (OpenCV's detection is not safe on one classifier from
// two threads), made at the thread's first use and shared by every set of those files. 64 cameras
// on a pool of 2 detector threads hold 2 copies, not 64.
typedef struct lk_cascade_set lk_cascade_set;

// Opens the files and loads the calling thread's copy (unless another set of the same files is
// open). On failure returns NULL, sets *failed to the file at fault (0 frontal, 1 verifier,
// 2 profile) and writes OpenCV's words (possibly empty) into err.
lk_cascade_set *lk_cascade_set_open(const char *frontal, const char *verifier, const char *profile, int *failed,
                                    char *err, size_t err_len);
void lk_cascade_set_close(lk_cascade_set *set);

// The calling thread's copy of the set's cascades, for lk_cascade_detect; NULL when it could not be
// loaded (lk_cascade_detect then fails with the reason).
lk_cascade *lk_cascade_set_cascade(lk_cascade_set *set);

// Parsed copies of the set's files held by threads (one per thread that detected with any set of them).
int lk_cascade_set_copies(lk_cascade_set *set);

// Detects objects in an 8-bit gray image (stride in bytes). Writes at most `capacity` rects
// in the image's own pixel coordinates; returns how many were found (may exceed capacity),
// or -1 on error (message in err).
int lk_cascade_detect(lk_cascade *cascade, const unsigned char *gray, int width, int height,
                      int stride, const lk_cascade_params *params, lk_rect *out, int capacity,
                      char *err, size_t err_len);

// Writes the (2*width) x (2*height) bicubic enlargement of an 8-bit gray image into `out` (tightly
// packed). Returns 0, or -1 when OpenCV failed.
int lk_double_scale(const unsigned char *gray, int width, int height, int stride, unsigned char *out);

// Writes an unsharp-masked copy of an 8-bit gray image into `out` (tightly packed): the image plus
// twice its difference from a Gaussian blur of `sigma`. Returns 0, or -1 when OpenCV failed.
int lk_sharpen(const unsigned char *gray, int width, int height, int stride, double sigma, unsigned char *out);

// Writes a flattened and sharpened copy of an 8-bit gray image into `out` (tightly packed): each
// pixel divided by the light around it (a blur of 6 % of the shorter side), stretched between the
// 1st and 99th percentiles, then unsharp-masked at sigma 2. Bright spots, glare and shadows across
// a code no longer decide its threshold. Returns 0, or -1 when OpenCV failed.
int lk_flatten_sharpen(const unsigned char *gray, int width, int height, int stride, unsigned char *out);

// Writes a contrast-normalised copy of an 8-bit gray image into `out` (tightly packed): each
// pixel's distance from the mean of the (2*radius+1)^2 pixels around it, over their standard
// deviation plus 4 levels, times 48, about 128 (clipped). A faint symbol gets the contrast of a
// sharp one. Returns 0, or -1 for bad arguments or when OpenCV failed.
int lk_normalize_contrast(const unsigned char *gray, int width, int height, int stride, int radius, unsigned char *out);

// Writes a copy of an 8-bit gray image enlarged twice each way (bicubic) and then unsharp-masked
// at `sigma` of the enlarged pixels into `out` (tightly packed, 2 x width by 2 x height). Modules
// of two or three pixels get room for their edges. Returns 0, or -1 when OpenCV failed.
int lk_enlarge_sharpen(const unsigned char *gray, int width, int height, int stride, double sigma, unsigned char *out);

// As lk_enlarge_sharpen, then each pixel black (0) or white (255) against the mean of the
// `block` by `block` pixels around it (odd, at least 3): a symbol's own place made black and
// white at the scale of its modules, whatever the light across it. Returns 0, or -1 when OpenCV
// failed or `block` is not odd and at least 3.
int lk_enlarge_threshold(const unsigned char *gray, int width, int height, int stride, double sigma, int block,
                         unsigned char *out);

// Writes a copy of an 8-bit gray image enlarged twice each way (bicubic), unsharpened, into `out`
// (tightly packed, 2 x width by 2 x height): a deconvolved copy is sharp already, and sharpening
// it again rings. Returns 0, or -1 when OpenCV failed.
int lk_enlarge(const unsigned char *gray, int width, int height, int stride, unsigned char *out);

// Writes a copy of an 8-bit gray image deconvolved by a Gaussian blur of `sigma` into `out`
// (tightly packed): a Wiener filter with `noise` as the noise-to-signal ratio (0.01 to 0.03),
// values beyond 0 and 255 clipped. Bars blurred into each other by most of a module come apart.
// Returns 0, or -1 when OpenCV failed or an argument is out of range.
int lk_deconvolve(const unsigned char *gray, int width, int height, int stride, double sigma, double noise,
                  unsigned char *out);

// Estimates a straight motion blur (a camera shaken) in an 8-bit gray place of at least 16 px a
// side: its `length` in pixels (3 to 16, at most a quarter of the shorter side) and `angle` in
// radians (0 to pi, x towards y), where the place's cepstrum is lowest and no trough half as deep
// lies across it (a grid of modules). Returns 0, or -1 when OpenCV failed, the place is too
// small, or no trough is found; a place without such blur can give an estimate too.
int lk_shake_estimate(const unsigned char *gray, int width, int height, int stride, double *length, double *angle);

// Writes a copy of an 8-bit gray image deconvolved by a straight motion blur of `length` pixels
// at `angle` radians into `out` (tightly packed): a Wiener filter with `noise` as the
// noise-to-signal ratio, values clipped. Returns 0, or -1 when OpenCV failed or an argument is
// out of range (a null pointer, a stride under the width, a length under 1 or over the shorter
// side, noise not positive, an angle not finite).
int lk_deconvolve_shake(const unsigned char *gray, int width, int height, int stride, double length, double angle,
                        double noise, unsigned char *out);

enum {
    LK_IMAGE_OK = 0,
    LK_IMAGE_DAMAGED = 1,      // no decoder took it, or the decoder failed
    LK_IMAGE_TOO_LARGE = 2,    // it declares more than max_pixels
    LK_IMAGE_UNAVAILABLE = 3,  // the codecs cannot be loaded, or memory ran out
};

// Decodes an encoded still image (PNG, PGM, BMP, ...) to 8-bit gray, refusing pictures that
// declare more than max_pixels (the first call sets the limit for the process). On success
// returns LK_IMAGE_OK and *pixels (free with lk_image_free), width and height (stride == width);
// otherwise a status above and the libraries' own text in err. With capture_stderr, what the
// codecs print themselves (libpng's "libpng error: ...") goes into err too, not to standard error.
int lk_image_decode_gray(const unsigned char *data, size_t length, size_t max_pixels, int capture_stderr,
                         unsigned char **pixels, int *width, int *height, char *err, size_t err_len);
void lk_image_free(unsigned char *pixels);

// Raw frame layouts lk_raw_to_rgb understands (PixelFormat's raw cases).
enum {
    LK_RAW_GRAY = 0, LK_RAW_YUYV = 1, LK_RAW_UYVY = 2, LK_RAW_NV12 = 3, LK_RAW_NV21 = 4,
    LK_RAW_I420 = 5, LK_RAW_422P = 6, LK_RAW_444P = 7,
};

// Converts a raw frame to packed RGB (3 bytes a pixel, rows width*3 apart). `stride` is the
// first plane's bytes per row; chroma planes follow the luma plane, their rows as far apart as
// the layout implies (half the stride for 4:2:0 and 4:2:2 planar). Returns 0, or -1 when
// `length` is too short for the layout.
int lk_raw_to_rgb(int layout, const unsigned char *data, size_t length, int width, int height, int stride,
                  unsigned char *rgb);

// Draws a closed outline through `count` points (pixels) on a packed RGB image, and `label`
// (UTF-8; what the font lacks shows as '?') on a filled band above it, in colour r, g, b.
// Thickness and text size follow the image size.
void lk_draw_outline(unsigned char *rgb, int width, int height, const double *xs, const double *ys, int count,
                     const char *label, int r, int g, int b);

// Resizes a packed RGB image by area averaging into dst (dst_width x dst_height, packed).
void lk_resize_rgb(const unsigned char *src, int width, int height, unsigned char *dst, int dst_width, int dst_height);

// Sets OpenCV's process-wide thread count (1: each call on its calling thread; 0: OpenCV's
// default) once no call above is running, as a face detection's `threads` does. Safe beside
// any of them on other threads.
void lk_opencv_use_threads(int threads);

#ifdef __cplusplus
}
#endif
#endif
