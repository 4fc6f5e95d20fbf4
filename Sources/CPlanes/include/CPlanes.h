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

#ifdef __cplusplus
}
#endif
#endif
