// Finder patterns of QR symbols in a gray image, found as a QR reader finds them (1:1:3:1:1 runs
// across and down), for FinderRepair.cpp. Internal to CZXing.
#ifndef LOOKOUT_CZXING_FINDER_PATTERNS_HPP
#define LOOKOUT_CZXING_FINDER_PATTERNS_HPP

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace lookout {

struct Vec {
    double x, y;
    Vec operator+(Vec o) const { return {x + o.x, y + o.y}; }
    Vec operator-(Vec o) const { return {x - o.x, y - o.y}; }
    Vec operator*(double k) const { return {x * k, y * k}; }
    double length() const { return std::hypot(x, y); }
    Vec turned() const { return {-y, x}; } // by 90 degrees
};

struct FinderPattern {
    Vec centre;
    double module; // pixels
    int hits;
    double angle = 0; // of its sides, modulo 90 degrees (radians)

    // The unit directions from its centre across its four sides.
    std::array<Vec, 4> sides() const {
        const double c = std::cos(angle), s = std::sin(angle);
        return {Vec{c, s}, Vec{-s, c}, Vec{-c, -s}, Vec{s, -c}};
    }

    // The direction along one of its sides nearest to `wanted`.
    Vec side_towards(Vec wanted) const {
        const std::array<Vec, 4> all = sides();
        Vec best = all[0];
        for (Vec side : all) if (side.x * wanted.x + side.y * wanted.y > best.x * wanted.x + best.y * wanted.y) best = side;
        return best;
    }
};

// Dark pixels, one byte each (1 dark): darker than the mean of a box around them, the box wider
// than a finder, so that light decides nothing across the picture. Empty when the image is too
// large for its integral (over 16 megapixels).
std::vector<uint8_t> binarized(const unsigned char *gray, int width, int height, int stride);

// The finder patterns in an image (`dark`: binarized), the most often crossed first: a centre much
// darker than its ring, crossed by rows for at least 1.5 modules, with a finder's profile along
// three of its four sides (one may be lost to glare or run into damage).
std::vector<FinderPattern> find_finder_patterns(const std::vector<uint8_t> &dark, const unsigned char *gray, int width,
                                                int height, int stride);

} // namespace lookout

#endif
