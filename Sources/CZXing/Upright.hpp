// A region of a gray image turned upright by the lean of its edges: zxing-cpp reads PDF417 rows
// only when they run within a few degrees of a scan line (or of one turned by 90 degrees), while
// a card held at an angle leans by tens. Internal to CZXing.
#ifndef LOOKOUT_CZXING_UPRIGHT_HPP
#define LOOKOUT_CZXING_UPRIGHT_HPP

#include <vector>

namespace lookout {

// The lean of a region's edges from the image axes, in degrees in (-45, 45]: the direction in
// which its gradients agree modulo 90 degrees (a bar's edges and a row's edges agree), weighted by
// their strength, measured on every other pixel. 0 when the region has no edges.
float edge_lean(const unsigned char *origin, int width, int height, int stride);

// The region turned by `lean` degrees so that its edges run along the axes, as a tightly packed
// image whose size holds the whole region; what lies outside it repeats its border pixels.
struct Upright {
    int width = 0, height = 0;
    // The source pixel (region coordinates) of a point of the turned image.
    void source(float x, float y, float &sx, float &sy) const {
        float u = x - centre_x, v = y - centre_y;
        sx = origin_x + cosine * u - sine * v;
        sy = origin_y + sine * u + cosine * v;
    }
    float cosine = 1, sine = 0, centre_x = 0, centre_y = 0, origin_x = 0, origin_y = 0;
};

// The gray level at (x, y) of a region, bilinear between its four pixels, the border repeated
// outside it (a point that is not a number reads the first pixel).
unsigned char sample_bilinear(const unsigned char *origin, int width, int height, int stride, float x, float y);

Upright turn_upright(const unsigned char *origin, int width, int height, int stride, float lean,
                     std::vector<unsigned char> &out);

} // namespace lookout

#endif
