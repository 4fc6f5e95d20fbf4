// Turning a leaning region upright (see Upright.hpp).
#include "Upright.hpp"

#include <algorithm>
#include <cmath>

namespace lookout {

float edge_lean(const unsigned char *origin, int width, int height, int stride) {
    // Each gradient's direction taken four times (angle modulo 90 degrees), weighted by its
    // squared strength: sum of m^2 cos 4a and m^2 sin 4a, with m^2 cos 2a = gx^2 - gy^2 and
    // m^2 sin 2a = 2 gx gy, so no trigonometry per pixel.
    double c = 0, s = 0;
    for (int y = 1; y + 1 < height; y += 2) {
        const unsigned char *row = origin + (size_t)y * stride;
        for (int x = 1; x + 1 < width; x += 2) {
            double gx = (double)row[x + 1] - row[x - 1];
            double gy = (double)row[x + stride] - row[x - stride];
            double m2 = gx * gx + gy * gy;
            if (m2 < 400) continue; // flat or noise: a step under 10 levels a pixel
            double c2 = gx * gx - gy * gy, s2 = 2 * gx * gy;
            c += (c2 * c2 - s2 * s2) / m2;
            s += 2 * c2 * s2 / m2;
        }
    }
    if (c == 0 && s == 0) return 0;
    return (float)(std::atan2(s, c) / 4 * 180 / M_PI);
}

unsigned char sample_bilinear(const unsigned char *origin, int width, int height, int stride, float x, float y) {
    if (!std::isfinite(x) || !std::isfinite(y)) x = y = 0;
    float fx = std::min(std::max(x, 0.0f), (float)(width - 1)), fy = std::min(std::max(y, 0.0f), (float)(height - 1));
    int x0 = (int)fx, y0 = (int)fy, x1 = std::min(x0 + 1, width - 1), y1 = std::min(y0 + 1, height - 1);
    float ax = fx - x0, ay = fy - y0;
    const unsigned char *a = origin + (size_t)y0 * stride, *b = origin + (size_t)y1 * stride;
    float top = a[x0] + (a[x1] - a[x0]) * ax, bottom = b[x0] + (b[x1] - b[x0]) * ax;
    return (unsigned char)(top + (bottom - top) * ay + 0.5f);
}

Upright turn_upright(const unsigned char *origin, int width, int height, int stride, float lean,
                     std::vector<unsigned char> &out) {
    Upright turned;
    double radians = lean * M_PI / 180;
    turned.cosine = (float)std::cos(radians);
    turned.sine = (float)std::sin(radians);
    float c = std::fabs(turned.cosine), s = std::fabs(turned.sine);
    turned.width = (int)std::ceil(width * c + height * s);
    turned.height = (int)std::ceil(width * s + height * c);
    turned.centre_x = turned.width / 2.0f;
    turned.centre_y = turned.height / 2.0f;
    turned.origin_x = width / 2.0f;
    turned.origin_y = height / 2.0f;
    out.resize((size_t)turned.width * turned.height);
    for (int y = 0; y < turned.height; y++) {
        unsigned char *to = out.data() + (size_t)y * turned.width;
        float sx, sy;
        turned.source(0, (float)y, sx, sy);
        for (int x = 0; x < turned.width; x++, sx += turned.cosine, sy += turned.sine)
            to[x] = sample_bilinear(origin, width, height, stride, sx, sy);
    }
    return turned;
}

} // namespace lookout
