#ifndef LOOKOUT_CPLANES_H
#define LOOKOUT_CPLANES_H
// Plain code on 8-bit planes, without a library: shared by the service and zxing-cpp's helper
// process, which must not load OpenCV to start fast.
#ifdef __cplusplus
extern "C" {
#endif

// Writes the (width/2) x (height/2) plane of 2x2 means of an 8-bit gray image into `out`
// (tightly packed).
void lk_half_scale(const unsigned char *gray, int width, int height, int stride, unsigned char *out);

// An EAN-13 symbol read from the grey levels of its bars, for bars a camera out of focus blurred
// past what a threshold tells apart (up to about a module). The place (x, y, place_width,
// place_height, within the plane) lies on the bars of one symbol at any angle; the symbol and its
// quiet zones may reach beyond it, up to twice its longer side either way (less for a place so
// large that the turned samples would pass 16 million; places of over 4 Mpx are refused). The
// rows across the bars are averaged into a profile, and the symbol whose blurred modules best
// explain it is found (position, module width, blur and grey levels searched; the check digit
// holding). The middle of the bars is then read in two halves, each on its own with the model
// the whole middle gave: `bands` gets each half's digits when they are the whole middle's, its
// bars are dark on light, and its model explains at least 85 % of the symbol's grey-level
// variance with a blur of at most 1.2 modules; and its measures either way. `corners` gets the
// symbol's corners in the plane's pixels, in reading order: where it starts, top then bottom,
// then where it ends. Returns 1 when a symbol was matched (its halves given or not), 0 when the
// place shows no bars between quiet zones, -1 for bad arguments.
typedef struct {
    char digits[14];  // 13 digits and a NUL, or empty
    float fit;        // the bars' contrast over the residual's root mean square
    float explained;  // the share of the symbol's grey-level variance the model explains
    float sigma;      // the blur found, in modules
} lk_ean13_band;

int lk_ean13_from_profiles(const unsigned char *gray, int width, int height, int stride, int x, int y, int place_width,
                           int place_height, lk_ean13_band bands[2], float corners[8]);

#ifdef __cplusplus
}
#endif
#endif
