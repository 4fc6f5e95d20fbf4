// A symbol in a region, found as the largest patch of dense edges, and the region's pixels
// re-sampled so that the symbol stands square: a PDF417 seen at a slant, sheared or foreshortened
// has rows zxing-cpp's scan lines cross at an angle, and turning by the edges' lean does not
// straighten bars and rows that no longer meet at right angles. Internal to CZXing.
#ifndef LOOKOUT_CZXING_RECTIFY_HPP
#define LOOKOUT_CZXING_RECTIFY_HPP

#include <vector>

namespace lookout {

// Four corners (x, y; region coordinates), clockwise on screen from the first.
struct Quad {
    float x[4] = {}, y[4] = {};
};

// The symbol's outline in a region: the largest 4-connected patch of `cell`-pixel cells a fifth
// of whose pixels are strong edges (gaps of a cell closed), as its smallest enclosing rectangle
// (any angle) and as the patch's outline points nearest that rectangle's corners (perspective).
// False when the region holds no patch of at least 12 cells.
bool symbol_outline(const unsigned char *origin, int width, int height, int stride, int cell,
                    Quad &rectangle, Quad &corners);

// The region re-sampled (bilinear) so that `quad` becomes an upright rectangle as long as its
// sides, with a margin of `margin` of each side around it; what lies outside the region repeats
// its border pixels. `source` maps a point of the copy back into the region.
struct Rectified {
    int width = 0, height = 0;
    void source(float x, float y, float &sx, float &sy) const {
        double w = h[6] * x + h[7] * y + 1;
        sx = (float)((h[0] * x + h[1] * y + h[2]) / w);
        sy = (float)((h[3] * x + h[4] * y + h[5]) / w);
    }
    double h[8] = {}; // copy to region: the homography's first eight terms (the ninth is 1)
};

// The copy's size and homography for `quad`, as rectify makes them; false as rectify.
bool plan_rectified(const Quad &quad, float margin, int max_pixels, Rectified &rectified);

// The copy `rectified` plans, into `out` (tightly packed, its width by its height).
void sample_rectified(const unsigned char *origin, int width, int height, int stride, const Rectified &rectified,
                      unsigned char *out);

// False when a corner or the margin is not finite, the margin is outside 0 to under 0.5, the
// longer of each pair of opposite sides is under 16 pixels, there is no finite homography, or the
// copy would pass `max_pixels`.
bool rectify(const unsigned char *origin, int width, int height, int stride, const Quad &quad,
             float margin, int max_pixels, std::vector<unsigned char> &out, Rectified &rectified);

} // namespace lookout

#endif
