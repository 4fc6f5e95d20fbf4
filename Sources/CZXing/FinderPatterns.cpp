// Finder patterns of QR symbols (FinderPatterns.hpp).
#include "FinderPatterns.hpp"

#include <algorithm>

namespace lookout {

// Dark pixels: darker than the mean of a box around them (the box wider than a finder), so that
// light decides nothing across the picture.
std::vector<uint8_t> binarized(const unsigned char *gray, int width, int height, int stride) {
    if ((long long)width * height * 255 >= (1LL << 32)) return {};
    std::vector<uint32_t> integral((size_t)(width + 1) * (height + 1), 0);
    for (int y = 0; y < height; y++) {
        uint32_t row = 0;
        const unsigned char *line = gray + (size_t)y * stride;
        uint32_t *above = &integral[(size_t)y * (width + 1)], *here = above + width + 1;
        for (int x = 0; x < width; x++) {
            row += line[x];
            here[x + 1] = above[x + 1] + row;
        }
    }
    const int radius = std::max(16, std::min(width, height) / 12);
    std::vector<uint8_t> dark((size_t)width * height);
    for (int y = 0; y < height; y++) {
        const int top = std::max(0, y - radius), bottom = std::min(height, y + radius + 1);
        const unsigned char *line = gray + (size_t)y * stride;
        for (int x = 0; x < width; x++) {
            const int left = std::max(0, x - radius), right = std::min(width, x + radius + 1);
            const uint32_t sum = integral[(size_t)bottom * (width + 1) + right] - integral[(size_t)top * (width + 1) + right]
                - integral[(size_t)bottom * (width + 1) + left] + integral[(size_t)top * (width + 1) + left];
            const uint32_t count = (uint32_t)(bottom - top) * (right - left);
            dark[(size_t)y * width + x] = (uint32_t)line[x] * count < sum;
        }
    }
    return dark;
}

namespace {

// The gray level at `p`, rounded to a pixel and held within the image.
int level_at(const unsigned char *gray, int width, int height, int stride, Vec p) {
    const int x = std::clamp((int)std::lround(p.x), 0, width - 1), y = std::clamp((int)std::lround(p.y), 0, height - 1);
    return gray[(size_t)y * stride + x];
}

// Five runs dark, light, dark, light, dark in 1:1:3:1:1; the module size, or 0.
double finder_module(const int runs[5]) {
    const int total = runs[0] + runs[1] + runs[2] + runs[3] + runs[4];
    if (total < 7) return 0;
    const double module = total / 7.0, slack = module * 0.7;
    for (int i : {0, 1, 3, 4}) if (std::abs(runs[i] - module) > slack) return 0;
    return std::abs(runs[2] - 3 * module) <= 3 * slack ? module : 0;
}

// The finder's runs down the column through (x, y), a point of its centre: its module and the
// centre's row, or 0.
double column_check(const std::vector<uint8_t> &dark, int width, int height, int x, int y, double &centre_y) {
    auto at = [&](int yy) { return dark[(size_t)yy * width + x] != 0; };
    int runs[5] = {0, 0, 0, 0, 0};
    int up = y;
    while (up >= 0 && at(up)) { runs[2]++; up--; }
    while (up >= 0 && !at(up)) { runs[1]++; up--; }
    while (up >= 0 && at(up)) { runs[0]++; up--; }
    int down = y + 1;
    while (down < height && at(down)) { runs[2]++; down++; }
    while (down < height && !at(down)) { runs[3]++; down++; }
    while (down < height && at(down)) { runs[4]++; down++; }
    if (!runs[0] || !runs[1] || !runs[3] || !runs[4]) return 0;
    // The centre run's first row: past the two runs above it.
    const int first = up + 1 + runs[0] + runs[1];
    centre_y = first + (runs[2] - 1) / 2.0;
    return finder_module(runs);
}

// The lean of a finder's sides, modulo 90 degrees: its edges' gradients, their angles taken four
// times so that all four sides agree.
double side_angle(const unsigned char *gray, int width, int height, int stride, Vec centre, double module) {
    const int reach = (int)std::ceil(4 * module);
    const int x0 = std::max(1, (int)centre.x - reach), x1 = std::min(width - 2, (int)centre.x + reach);
    const int y0 = std::max(1, (int)centre.y - reach), y1 = std::min(height - 2, (int)centre.y + reach);
    double c = 0, s = 0;
    for (int y = y0; y <= y1; y++) {
        for (int x = x0; x <= x1; x++) {
            auto at = [&](int dx, int dy) { return (double)gray[(size_t)(y + dy) * stride + x + dx]; };
            const double gx = at(1, -1) + 2 * at(1, 0) + at(1, 1) - at(-1, -1) - 2 * at(-1, 0) - at(-1, 1);
            const double gy = at(-1, 1) + 2 * at(0, 1) + at(1, 1) - at(-1, -1) - 2 * at(0, -1) - at(1, -1);
            const double magnitude = std::hypot(gx, gy);
            if (magnitude < 40) continue;
            const double phi = 4 * std::atan2(gy, gx);
            c += magnitude * std::cos(phi), s += magnitude * std::sin(phi);
        }
    }
    return std::atan2(s, c) / 4;
}

} // namespace

std::vector<FinderPattern> find_finder_patterns(const std::vector<uint8_t> &dark, const unsigned char *gray, int width,
                                                int height, int stride) {
    std::vector<FinderPattern> found;
    // The finders found so far by where they are, in cells of 32 pixels.
    constexpr int cell = 32;
    const int columns = (width + cell - 1) / cell, rows = (height + cell - 1) / cell;
    std::vector<std::vector<int>> grid((size_t)columns * rows);
    std::vector<int> starts;
    for (int y = 0; y < height; y++) {
        const uint8_t *line = &dark[(size_t)y * width];
        starts.clear();
        for (int x = 0; x < width; x++) if (x == 0 || line[x] != line[x - 1]) starts.push_back(x);
        starts.push_back(width);
        const int count = (int)starts.size() - 1;
        for (int i = 0; i + 5 <= count; i++) {
            if (!line[starts[i]]) continue; // five runs starting with a dark one
            int runs[5];
            for (int k = 0; k < 5; k++) runs[k] = starts[i + k + 1] - starts[i + k];
            const double across = finder_module(runs);
            if (across < 1.5) continue;
            const int x = (starts[i + 2] + starts[i + 3] - 1) / 2;
            double centre_y = y;
            const double down = column_check(dark, width, height, x, y, centre_y);
            if (down < 1.5 || std::max(across, down) > 1.6 * std::min(across, down)) continue;
            const Vec centre{(starts[i + 2] + starts[i + 3] - 1) / 2.0, centre_y};
            const double module = (across + down) / 2;
            // The same finder crossed again: one within two modules, looked up in the cells around
            // (a finder is kept in the cell of its first hit; its centre moves less than a cell).
            const int cx = (int)centre.x / cell, cy = (int)centre.y / cell, reach = 1 + (int)(2 * module) / cell;
            FinderPattern *same = nullptr;
            for (int gy = std::max(0, cy - reach); gy <= std::min(rows - 1, cy + reach) && !same; gy++) {
                for (int gx = std::max(0, cx - reach); gx <= std::min(columns - 1, cx + reach) && !same; gx++) {
                    for (int index : grid[(size_t)gy * columns + gx]) {
                        FinderPattern &finder = found[index];
                        if ((finder.centre - centre).length() < 2 * module && std::abs(finder.module - module) < 0.5 * module) {
                            same = &finder;
                            break;
                        }
                    }
                }
            }
            if (same) {
                same->centre = (same->centre * same->hits + centre) * (1.0 / (same->hits + 1));
                same->module = (same->module * same->hits + module) / (same->hits + 1);
                same->hits++;
            } else if (found.size() < 4000) {
                grid[(size_t)cy * columns + cx].push_back((int)found.size());
                found.push_back({centre, module, 1});
            }
        }
    }
    // A finder is crossed by about three modules' worth of rows; one hit is a texture's accident.
    // And its centre is much darker than the light ring around it, whichever way it is turned
    // (2.2 modules from the centre is in the ring at any angle).
    found.erase(std::remove_if(found.begin(), found.end(), [&](const FinderPattern &f) {
        if (f.hits < 2 || f.hits < 1.5 * f.module) return true;
        auto at = [&](Vec p) { return level_at(gray, width, height, stride, p); };
        const double r = 2.2 * f.module;
        const int centre = at(f.centre);
        int ring = 255;
        for (int k = 0; k < 8; k++) ring = std::min(ring, at(f.centre + Vec{std::cos(k * M_PI / 4), std::sin(k * M_PI / 4)} * r));
        return ring - centre < 30;
    }), found.end());
    std::sort(found.begin(), found.end(), [](const FinderPattern &a, const FinderPattern &b) { return a.hits > b.hits; });
    for (FinderPattern &f : found) f.angle = side_angle(gray, width, height, stride, f.centre, f.module);
    // Along each of its four sides' directions: dark at the centre and 3 modules out, light 2 and
    // 4 modules out (the ring, and the separator every finder has). A dotted or ruled texture
    // that passes 1:1:3:1:1 on rows seldom passes this.
    found.erase(std::remove_if(found.begin(), found.end(), [&](const FinderPattern &f) {
        auto at = [&](Vec p) { return level_at(gray, width, height, stride, p); };
        const int centre = at(f.centre);
        int fails = 0;
        for (Vec side : f.sides()) {
            const int ring = at(f.centre + side * (2 * f.module)), outer = at(f.centre + side * (3 * f.module));
            const int separator = at(f.centre + side * (4.1 * f.module));
            const int light = std::min(ring, separator), darkest = std::max(centre, outer);
            if (light - darkest < 20) fails++;
        }
        return fails > 1; // one side may be lost to glare, or run into the lost part
    }), found.end());
    return found;
}

} // namespace lookout
