// QR codes with one finder pattern lost (glare, a bright spot, a tear): see lk_zx_read_repaired
// in CZXing.h. A QR symbol is found by its three finders; zxing-cpp reads none with two, although
// Reed-Solomon would restore the data under the lost one. Two finders of one size at a QR's
// distance say where the third must be: painted there in a copy, the symbol is read as usual.
#include "CZXing.h"
#include "FinderPatterns.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <vector>

namespace {

using lookout::FinderPattern;
using lookout::Vec;

long long now_ms() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000LL + now.tv_nsec / 1000000;
}

// Where the lines p + s d and q + t e meet; `fallback` when they are (nearly) parallel.
Vec meeting(Vec p, Vec d, Vec q, Vec e, Vec fallback) {
    const double det = d.x * e.y - d.y * e.x;
    if (std::abs(det) < 0.2) return fallback;
    const Vec w = q - p;
    const double s = (w.x * e.y - w.y * e.x) / det;
    return p + d * s;
}

// How busy the square on `hand` of the side from `a` to `b` is: changes between dark and light
// along its rows, sampled on a grid (a symbol's data change often, paper and walls seldom).
double busyness(const std::vector<uint8_t> &dark, int width, int height, Vec a, Vec b, int hand) {
    const Vec along = b - a, across = along.turned() * hand;
    int changes = 0;
    for (int row = 1; row < 16; row++) {
        int last = -1;
        for (int column = 1; column < 32; column++) {
            const Vec p = a + along * (column / 32.0) + across * (row / 16.0);
            const int x = (int)p.x, y = (int)p.y;
            if (x < 0 || y < 0 || x >= width || y >= height) { last = -1; continue; }
            const int here = dark[(size_t)y * width + x];
            if (last >= 0 && here != last) changes++;
            last = here;
        }
    }
    return changes;
}

bool inside(Vec p, const int *quad) {
    // A convex quadrilateral, corners in order: p on the same side of every edge.
    int sign = 0;
    for (int i = 0; i < 4; i++) {
        const Vec a{(double)quad[2 * i], (double)quad[2 * i + 1]}, b{(double)quad[(2 * i + 2) % 8], (double)quad[(2 * i + 3) % 8]};
        const double cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
        const int side = cross > 0 ? 1 : (cross < 0 ? -1 : 0);
        if (side && sign && side != sign) return false;
        if (side) sign = side;
    }
    return true;
}

// A QR symbol's three finders: `corner` the one beside both others, `along` and `down` its
// neighbours; the lost one, to paint, is `corner` or `down`.
struct Hypothesis {
    Vec corner, along, down;
    bool cornerLost; // else `down` is
    double module;
    int pair; // which two finders
    int rank; // 0: where the finders say; 1: a module or a few hundredths off
};

// Paints a finder (its 7x7 modules and the light ring around them) centred at `centre`, its
// sides along `u` and `v` (one module each), into the crop.
void paint(std::vector<uint8_t> &crop, int width, int height, Vec centre, Vec u, Vec v) {
    const double reach = 4.5 * std::max(u.length(), v.length()) * 1.5;
    const double det = u.x * v.y - u.y * v.x;
    if (std::abs(det) < 1e-6) return;
    const int x0 = std::max(0, (int)(centre.x - reach)), x1 = std::min(width - 1, (int)(centre.x + reach));
    const int y0 = std::max(0, (int)(centre.y - reach)), y1 = std::min(height - 1, (int)(centre.y + reach));
    for (int y = y0; y <= y1; y++) {
        for (int x = x0; x <= x1; x++) {
            const Vec d = Vec{x + 0.5, y + 0.5} - centre;
            // d = s u + t v, in modules.
            const double s = (d.x * v.y - d.y * v.x) / det, t = (u.x * d.y - u.y * d.x) / det;
            const double ring = std::max(std::abs(s), std::abs(t));
            if (ring > 4.5) continue;
            crop[(size_t)y * width + x] = (ring <= 1.5 || (ring > 2.5 && ring <= 3.5)) ? 0 : 255;
        }
    }
}

// The most copies read in one image: every pair's first guesses, then the places around them (a
// pair of a code that lost a finder makes 2 to 20 on the benchmark photographs).
constexpr int max_tries = 64;

} // namespace

extern "C" int lk_zx_read_repaired(const unsigned char *gray, int width, int height, int stride, int flags,
                                   const int *known, int known_count, int budget_ms,
                                   lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity) {
    if (!gray || width < 32 || height < 32 || capacity <= 0) return 0;
    const long long deadline = budget_ms > 0 ? now_ms() + budget_ms : 0;
    const std::vector<uint8_t> dark = lookout::binarized(gray, width, height, stride);
    if (dark.empty()) return 0;
    std::vector<FinderPattern> finders = lookout::find_finder_patterns(dark, gray, width, height, stride);
    // Finders of codes read already are no lost code's.
    finders.erase(std::remove_if(finders.begin(), finders.end(), [&](const FinderPattern &f) {
        for (int k = 0; k < known_count; k++) if (inside(f.centre, known + 8 * k)) return true;
        return false;
    }), finders.end());
    if (finders.size() > 16) finders.resize(16);

    std::vector<Hypothesis> hypotheses;
    for (size_t i = 0; i < finders.size(); i++) {
        for (size_t j = i + 1; j < finders.size(); j++) {
            const FinderPattern &a = finders[i], &b = finders[j];
            const int pair = (int)(i * finders.size() + j);
            if (std::max(a.module, b.module) > 1.5 * std::min(a.module, b.module)) continue;
            const double module = (a.module + b.module) / 2, apart = (b.centre - a.centre).length() / module;
            // Finder centres are N - 7 modules apart along a side (N = 21 to 177), sqrt 2 times that
            // across; module sizes are measured within a few tenths.
            if (apart >= 11 && apart <= 190) { // a side: either is the corner, the third on either hand
                // The symbol lies on the hand its data make busy (or either, when both are).
                const double busy_left = busyness(dark, width, height, a.centre, b.centre, 1);
                const double busy_right = busyness(dark, width, height, a.centre, b.centre, -1);
                for (int hand : {1, -1}) {
                    const double mine = hand == 1 ? busy_left : busy_right, theirs = hand == 1 ? busy_right : busy_left;
                    if (mine < 0.5 * theirs) continue;
                    for (const FinderPattern *corner : {&a, &b}) {
                        const FinderPattern &other = corner == &a ? b : a;
                        const Vec turn = (corner == &a ? b.centre - a.centre : a.centre - b.centre).turned() * (corner == &a ? hand : -hand);
                        const Vec guess = corner->centre + turn;
                        // Along the sides' lean (both finders', one symbol's, its angle taken four
                        // times to average): lines stay lines in perspective.
                        FinderPattern mean = *corner;
                        mean.angle = std::atan2(std::sin(4 * a.angle) + std::sin(4 * b.angle), std::cos(4 * a.angle) + std::cos(4 * b.angle)) / 4;
                        const Vec side = mean.side_towards(guess - corner->centre), across = side.turned();
                        const double length = (other.centre - corner->centre).length();
                        // A side's length and lean are known within a module or two in perspective:
                        // then a little farther, nearer, and to either hand.
                        for (double stretch : {1.0, 1.07, 0.93}) {
                            for (double aside : {0.0, 1.0, -1.0}) {
                                const Vec lost = corner->centre + side * (length * stretch) + across * (aside * module);
                                hypotheses.push_back({corner->centre, other.centre, lost, false, module, pair, stretch == 1.0 && aside == 0.0 ? 0 : 1});
                            }
                        }
                    }
                }
            }
            if (apart >= 15 && apart <= 270) { // a diagonal: the corner is lost, on either hand
                const Vec middle = (a.centre + b.centre) * 0.5, half = (b.centre - a.centre) * 0.5;
                for (int hand : {1, -1}) {
                    const Vec guess = middle + half.turned() * hand;
                    // Where the two finders' sides towards it meet, which perspective keeps.
                    const Vec lost = meeting(a.centre, a.side_towards(guess - a.centre), b.centre, b.side_towards(guess - b.centre), guess);
                    if ((lost - guess).length() > 0.35 * half.length() * 2) continue;
                    hypotheses.push_back({lost, a.centre, b.centre, true, module, pair, 0});
                }
            }
        }
    }

    // Where the finders say first, for every pair; then the places around.
    std::vector<Hypothesis> ordered;
    for (int rank : {0, 1}) for (const Hypothesis &h : hypotheses) if (h.rank == rank) ordered.push_back(h);

    std::vector<uint8_t> crop;
    std::vector<unsigned char> payload(64 * 1024); // the longest QR payload, as UTF-8, several times
    std::vector<int> kept;
    int written = 0, used_bytes = 0;
    std::vector<int> read_pairs; // a pair's symbol is read once
    int tries = 0;
    bool failed = false; // zxing-cpp threw on a copy (out of memory)
    for (const Hypothesis &h : ordered) {
        // A textured picture can hold many finder-like places: its tries are bounded too.
        if (written >= capacity || (deadline && now_ms() > deadline) || tries >= max_tries) break;
        if (std::find(read_pairs.begin(), read_pairs.end(), h.pair) != read_pairs.end()) continue;
        const Vec lost = h.cornerLost ? h.corner : h.down;
        const Vec side_u = h.along - h.corner, side_v = h.down - h.corner;
        const double side = (side_u.length() + side_v.length()) / 2, module = h.module;
        // The modules between finder centres: the side's length in whole versions.
        const int version = std::clamp((int)std::lround((side / module + 7 - 17) / 4), 1, 40);
        const double modules = 17 + 4 * version - 7;
        // Not on a finder that is there (that symbol had its three), and within the picture.
        bool present = false;
        for (const FinderPattern &f : finders) present = present || (f.centre - lost).length() < 3 * module;
        if (present || lost.x < 3.5 * module || lost.y < 3.5 * module || lost.x > width - 3.5 * module || lost.y > height - 3.5 * module) continue;
        const Vec u = side_u * (1.0 / modules), v = side_v * (1.0 / modules);
        // The symbol and its quiet zone.
        const Vec far = h.along + side_v;
        double left = width, top = height, right = 0, bottom = 0;
        for (Vec p : {h.corner, h.along, h.down, far}) {
            left = std::min(left, p.x), right = std::max(right, p.x), top = std::min(top, p.y), bottom = std::max(bottom, p.y);
        }
        const double margin = 9 * module;
        const int x0 = std::max(0, (int)(left - margin)), y0 = std::max(0, (int)(top - margin));
        const int x1 = std::min(width, (int)(right + margin)), y1 = std::min(height, (int)(bottom + margin));
        const int cw = x1 - x0, ch = y1 - y0;
        if (cw < 32 || ch < 32) continue;
        crop.resize((size_t)cw * ch);
        for (int y = 0; y < ch; y++) std::copy_n(gray + (size_t)(y0 + y) * stride + x0, cw, &crop[(size_t)y * cw]);
        paint(crop, cw, ch, lost - Vec{(double)x0, (double)y0}, u, v);
        tries++;
        const lk_zx_region whole{0, 0, cw, ch, 1};
        lk_zx_code found[8];
        const int count = lk_zx_read(crop.data(), cw, ch, cw, LK_ZX_QR, flags, &whole, 1, 0, found, 8, payload.data(), (int)payload.size());
        failed = failed || count < 0;
        for (int k = 0; k < count && written < capacity; k++) {
            lk_zx_code code = found[k];
            for (int c = 0; c < 4; c++) code.x[c] += x0, code.y[c] += y0;
            // The symbol read must be the one the finders and the painted one make: all three
            // inside it, and about as large. A texture with a finder painted on it can make a
            // small symbol of its own elsewhere.
            int quad[8];
            for (int c = 0; c < 4; c++) quad[2 * c] = code.x[c], quad[2 * c + 1] = code.y[c];
            if (!inside(h.corner, quad) || !inside(h.along, quad) || !inside(h.down, quad)) continue;
            const double read_side = (Vec{(double)(code.x[1] - code.x[0]), (double)(code.y[1] - code.y[0])}.length()
                                      + Vec{(double)(code.x[3] - code.x[0]), (double)(code.y[3] - code.y[0])}.length()) / 2;
            const double expected_side = side * (modules + 7) / modules;
            if (read_side < 0.75 * expected_side || read_side > 1.33 * expected_side) continue;
            read_pairs.push_back(h.pair);
            // One report a symbol: the same one read from another pair's hypothesis is not added.
            const Vec centre{(code.x[0] + code.x[2]) / 2.0, (code.y[0] + code.y[2]) / 2.0};
            bool again = false;
            for (int w = 0; w < written; w++) again = again || inside(centre, kept.data() + 8 * w);
            for (int k2 = 0; k2 < known_count; k2++) again = again || inside(centre, known + 8 * k2);
            if (again || used_bytes + code.length > bytes_capacity) continue;
            std::copy_n(payload.data() + code.offset, code.length, bytes + used_bytes);
            code.offset = used_bytes;
            used_bytes += code.length;
            out[written++] = code;
            for (int c = 0; c < 4; c++) kept.push_back(code.x[c]), kept.push_back(code.y[c]);
        }
    }
    // A failure is told when it cost the image everything, as lk_zx_read tells it.
    return written == 0 && failed ? -1 : written;
}
