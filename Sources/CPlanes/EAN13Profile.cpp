// An EAN-13 symbol read from the grey levels of its bars rather than from a threshold: a camera too
// close to focus blurs bars by most of a module, a one-module bar becomes a shallow dip beside its
// neighbours, and no threshold (nor a deconvolution of noisy pixels) tells the bars apart any more.
// The rows across the bars are averaged into a profile (the noise falls with their number), and
// the profile is matched against the symbol itself blurred: every EAN-13 is a sequence of 95
// modules, and a Gaussian blur of the sequence is what the camera saw. Maximum likelihood over all
// 10^12 symbols is a dynamic programme over the 12 coded digits, because a blur of at most about a
// module reaches no further than the neighbouring digit; the check digit is part of its state.
#include "CPlanes.h"
#include "EAN13Model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

namespace {

using lookout::ean13::Hypothesis;

// What a half's read must show to be given: a blur found of at most `mostBlur` modules, and a share
// of the symbol's grey levels explained that grows with the blur, for a blurred model is smooth
// and smooth profiles fit it. Measured on whole pictures, the bars turned upright by their
// sharpest mean:
// - 84 halves of 42 defocused symbols (blurs of 0.33 to 0.88 modules) explained 0.92 to 0.99, at
//   blurs found of 0.45 to 0.95. Symbols of 1.1 to 1.8 px modules matched right mostly explained
//   0.85 and more; those of bars a whole pixel or two wide (rendered or printed by the dot)
//   0.82 to 0.84, at blurs of 0.55 to 0.65.
// - 3,851 places on 994 pictures without an EAN-13 (the QR benchmark, PDF417, Aztec, DataMatrix,
//   code-free, faces, textures) gave 2,166 halves: of blurs up to 0.8 they explained at most
//   0.57; above, at least 0.05 less than this asks (0.81 at 0.95, 0.79 at 1.15).
// - A symbol matched to wrong digits explained at most 0.61 at blurs up to 1.2.
constexpr double mostBlur = 1.2;
double leastExplained(double sigma) { return 0.80 + 0.25 * std::max(0.0, sigma - 0.7); }
using lookout::ean13::Read;

// A place turned so that its bars stand upright: sample (column, row) is the image, bilinear, at
// centre + u·across + v·along, u = u0 + column, v = v0 + row; NaN beyond the image. Samples are
// taken as they are wanted: the rows across the place, then the rows of bars across the reach.
struct Turned {
    const unsigned char *gray;
    int imageWidth, imageHeight, stride;
    double cx, cy, ax, ay;  // centre; unit vector across the bars (the reading direction)
    int width, height;      // samples across and along
    double u0, v0;          // u and v of sample (0, 0)

    // The image point of (u, v): the one mapping both the samples and the corners use.
    void map(double u, double v, double &x, double &y) const {
        x = cx + u * ax - v * ay;
        y = cy + u * ay + v * ax;
    }
    void point(double u, double v, float *xy) const {
        double x, y;
        map(u, v, x, y);
        xy[0] = (float)x, xy[1] = (float)y;
    }
    float at(int column, int row) const {
        double x, y;
        map(u0 + column, v0 + row, x, y);
        if (!(x >= 0 && y >= 0 && x <= imageWidth - 1 && y <= imageHeight - 1)) return NAN;
        int x0 = std::min((int)x, imageWidth - 2), y0 = std::min((int)y, imageHeight - 2);
        double fx = x - x0, fy = y - y0;
        const unsigned char *p = gray + (size_t)y0 * stride + x0;
        double top = p[0] + (p[1] - p[0]) * fx, bottom = p[stride] + (p[stride + 1] - p[stride]) * fx;
        return (float)(top + (bottom - top) * fy);
    }
};

// The direction across the bars: the dominant gradient direction (the structure tensor's).
bool across(const unsigned char *gray, int width, int height, int stride, double *ax, double *ay) {
    double xx = 0, yy = 0, xy = 0;
    for (int y = 1; y + 1 < height; y++) {
        const unsigned char *row = gray + (size_t)y * stride;
        for (int x = 1; x + 1 < width; x++) {
            double gx = (double)row[x + 1] - row[x - 1], gy = (double)row[x + stride] - row[x - stride];
            xx += gx * gx;
            yy += gy * gy;
            xy += gx * gy;
        }
    }
    if (xx + yy <= 0) return false;
    double theta = 0.5 * std::atan2(2 * xy, xx - yy);
    *ax = std::cos(theta);
    *ay = std::sin(theta);
    return true;
}

// The plane turned round the place's centre, as far as the place reaches along the bars and
// `reach` samples further either way across them (NaN beyond the plane): a place found where
// bars are dense may hold a part of the symbol only, and the quiet zones lie beyond it.
Turned turn(const unsigned char *gray, int width, int height, int stride, const int place[4], double ax, double ay,
            double reach, double *placeU) {
    Turned t{gray, width, height, stride, place[0] + place[2] / 2.0, place[1] + place[3] / 2.0, ax, ay, 0, 0, 0, 0};
    double umin = 1e9, umax = -1e9, vmin = 1e9, vmax = -1e9;
    for (double x : {(double)place[0], (double)place[0] + place[2] - 1}) {
        for (double y : {(double)place[1], (double)place[1] + place[3] - 1}) {
            double dx = x - t.cx, dy = y - t.cy;
            double u = dx * ax + dy * ay, v = -dx * ay + dy * ax;
            umin = std::min(umin, u), umax = std::max(umax, u), vmin = std::min(vmin, v), vmax = std::max(vmax, v);
        }
    }
    *placeU = umax - umin;
    umin -= reach, umax += reach;
    t.u0 = std::floor(umin), t.v0 = std::floor(vmin);
    t.width = (int)(umax - t.u0) + 1, t.height = (int)(vmax - t.v0) + 1;
    return t;
}

// Each row's mean step across four samples: rows that cross bars step the most. A step from one
// sample to the next would be mostly sensor noise where bars are blurred over several pixels.
std::vector<double> rowEnergy(const Turned &t, int from, int to) {
    std::vector<double> energy(t.height, 0);
    for (int row = 0; row < t.height; row++) {
        double sum = 0;
        int count = 0;
        for (int column = from; column + 4 < to; column++) {
            float a = t.at(column, row), b = t.at(column + 4, row);
            if (std::isnan(a) || std::isnan(b)) continue;
            sum += std::fabs(b - a);
            count++;
        }
        energy[row] = count > 16 ? sum / count : 0;
    }
    return energy;
}

std::vector<double> smoothed(const std::vector<double> &values, int radius) {
    std::vector<double> out(values.size(), 0);
    for (size_t i = 0; i < values.size(); i++) {
        double sum = 0;
        int count = 0;
        for (int d = -radius; d <= radius; d++) {
            long j = (long)i + d;
            if (j >= 0 && j < (long)values.size()) sum += values[j], count++;
        }
        out[i] = sum / count;
    }
    return out;
}

// The mean of rows [first, middle), of [middle, last) and of both at each column, in one pass;
// a column missing in a fifth of a band's rows is NaN there.
void profiles(const Turned &t, int first, int middle, int last, std::vector<float> bands[3]) {
    for (int i = 0; i < 3; i++) bands[i].assign(t.width, NAN);
    for (int column = 0; column < t.width; column++) {
        double sums[2] = {0, 0};
        int counts[2] = {0, 0};
        for (int row = first; row < last; row++) {
            float value = t.at(column, row);
            if (!std::isnan(value)) sums[row >= middle] += value, counts[row >= middle]++;
        }
        const int rows[2] = {middle - first, last - middle};
        for (int half = 0; half < 2; half++) {
            if (counts[half] > 0 && counts[half] * 5 >= rows[half] * 4) bands[half][column] = (float)(sums[half] / counts[half]);
        }
        if (counts[0] + counts[1] > 0 && (counts[0] + counts[1]) * 5 >= (last - first) * 4) {
            bands[2][column] = (float)((sums[0] + sums[1]) / (counts[0] + counts[1]));
        }
    }
}

// The longest run of light samples wholly within [from, to); -1 when a sample is missing.
int longestSpace(const std::vector<float> &p, int from, int to, double level) {
    int longest = 0;
    for (int x = std::max(0, from), count = 0; x < to && x < (int)p.size(); x++) {
        if (std::isnan(p[x])) return -1;
        if (p[x] > level) count++;
        else {
            if (count < x - from) longest = std::max(longest, count);
            count = 0;
        }
    }
    return longest;
}

// The symbol's first and last dark samples: from the middle outwards to the first run of light
// samples (a quiet zone) half as long again as any space within the symbol, and at least 4
// samples, then back to the first sample well below the light. Within the symbol a space is at
// most 4 modules, a quiet zone at least 7. The spaces are first those of the place's middle half
// (a place may reach past the symbol) and those passed on the way, then those within the extent
// found, until the extent holds none as long.
bool extent(const std::vector<float> &p, int middle, int from, int to, double light, double dark, int *lo, int *hi) {
    double level = light - 0.2 * (light - dark);
    int quarter = (to - from) / 4;
    int longest = longestSpace(p, from + quarter, to - quarter, level);
    auto edge = [&](int step) {
        int x = middle, count = 0, passed = longest;
        for (; x >= 0 && x < (int)p.size(); x += step) {
            if (std::isnan(p[x])) return -1;
            if (p[x] > level) {
                if (++count >= 4 && count * 2 >= passed * 3) break;
            } else {
                passed = std::max(passed, count);
                count = 0;
            }
        }
        if (x < 0 || x >= (int)p.size()) return -1;
        x -= step * (count - 1);
        while (x != middle && !(p[x] < light - 0.35 * (light - dark))) x -= step;
        return x;
    };
    for (int round = 0; round < 8 && longest >= 0; round++) {
        *lo = edge(-1), *hi = edge(1);
        if (*lo < 0 || *hi <= *lo) return false;
        int within = longestSpace(p, *lo, *hi + 1, level);
        if (within <= longest) return true;
        longest = within;
    }
    return false;
}

// The rows of bars: round the row that steps the most, while rows step at least half as much.
bool barRows(const Turned &t, int from, int to, int *top, int *bottom) {
    std::vector<double> energy = smoothed(rowEnergy(t, from, to), 3);
    int peak = (int)(std::max_element(energy.begin(), energy.end()) - energy.begin());
    if (energy[peak] <= 0) return false;
    *top = *bottom = peak;
    while (*top > 0 && energy[*top - 1] > energy[peak] / 2) --*top;
    while (*bottom + 1 < t.height && energy[*bottom + 1] > energy[peak] / 2) ++*bottom;
    return *bottom - *top + 1 >= 6;
}

// The same samples turned by `angle` round the place's centre.
Turned rotated(const Turned &t, double angle) {
    Turned r = t;
    double c = std::cos(angle), s = std::sin(angle);
    r.ax = t.ax * c - t.ay * s, r.ay = t.ax * s + t.ay * c;
    return r;
}

// The variance across columns [from, to) of the mean of 16 rows spread over [first, last): bars
// that lean in the rows smear the mean, by the rows' span rather than their number. A column
// missing a row is left out (fewer rows would smear less); a place k times 1,024 columns wide is
// sampled every k columns (the work bounded).
double sharpness(const Turned &t, int from, int to, int first, int last) {
    const int rows = std::min(16, last - first), every = std::max(1, (to - from) / 1024);
    if (rows < 2) return 0;
    double sum = 0, squares = 0;
    int count = 0;
    for (int column = from; column < to; column += every) {
        double total = 0;
        int n = 0;
        for (int i = 0; i < rows; i++) {
            float v = t.at(column, first + (rows > 1 ? i * (last - 1 - first) / (rows - 1) : 0));
            if (!std::isnan(v)) total += v, n++;
        }
        if (n < rows) continue;
        double mean = total / n;
        sum += mean, squares += mean * mean, count++;
    }
    return count > 16 ? squares / count - (sum / count) * (sum / count) : 0;
}

}  // namespace

extern "C" int lk_ean13_from_profiles(const unsigned char *gray, int width, int height, int stride, int x, int y,
                                      int placeWidth, int placeHeight, lk_ean13_band bands[2], float corners[8]) {
    if (!bands || !corners) return -1;
    for (int i = 0; i < 2; i++) bands[i] = lk_ean13_band{};
    std::fill(corners, corners + 8, 0.0f);
    if (!gray || width < 16 || height < 8 || stride < width || (double)width * height > 1e9) return -1;
    if (x < 0 || y < 0 || placeWidth < 16 || placeHeight < 8 || x > width - placeWidth || y > height - placeHeight) return -1;
    if ((double)placeWidth * placeHeight > 4e6) return -1;
    double ax, ay;
    if (!across(gray + (size_t)y * stride + x, placeWidth, placeHeight, stride, &ax, &ay)) return 0;
    const int place[4] = {x, y, placeWidth, placeHeight};
    // Twice the place's longer side either way, within 16 million samples (the work bounded: the
    // rows of bars are sought in them twice at most, and the sharpest direction costs less).
    double diagonal = std::hypot(placeWidth, placeHeight);
    double reach = std::clamp((16e6 / diagonal - diagonal) / 2, 0.0, 2.0 * std::max(placeWidth, placeHeight)), placeU;
    Turned t = turn(gray, width, height, stride, place, ax, ay, reach, &placeU);
    // The place's own columns, and the one through its centre.
    int from, to, centre;
    auto columns = [&] {
        from = (int)(-t.u0 - placeU / 2), to = (int)(-t.u0 + placeU / 2) + 1, centre = (int)std::lround(-t.u0);
    };
    columns();

    int top, bottom;
    if (!barRows(t, from, to, &top, &bottom)) return 0;
    // The tensor's direction is that of all the place's gradients: where modules are near a pixel
    // wide, central differences barely see the bars, and the label's edges and digits lean it by
    // degrees. The direction that makes the mean of the rows of bars sharpest is taken instead.
    double turnedBy = 0, sharpest = sharpness(t, from, to, top, bottom + 1);
    // Within 12 degrees by whole degrees, then between the neighbouring degrees by quarters.
    for (auto [step, steps] : {std::pair{1.0, 12}, std::pair{0.25, 3}}) {
        double around = turnedBy;
        for (int k = -steps; k <= steps; k++) {
            double angle = around + k * step * M_PI / 180;
            if (k == 0) continue;
            double s = sharpness(rotated(t, angle), from, to, top, bottom + 1);
            if (s > sharpest) sharpest = s, turnedBy = angle;
        }
    }
    if (turnedBy != 0) {
        const Turned upright = rotated(t, turnedBy);
        t = turn(gray, width, height, stride, place, upright.ax, upright.ay, reach, &placeU);
        columns();
        if (!barRows(t, from, to, &top, &bottom)) return 0;
    }
    int rows = bottom - top + 1;
    // The middle three fifths (the ends may hold digits under the bars, or the label's edge), in halves.
    int first = top + rows / 5, last = bottom + 1 - rows / 5, middle = (first + last) / 2;
    std::vector<float> means[3];  // the upper half, the lower half, and the whole middle
    profiles(t, first, middle, last, means);
    std::vector<float> &whole = means[2], *halves = means;

    // Across: the light (the quiet zones) and the dark (bars in the place), then the symbol's
    // extent from the place's centre out to the quiet zones.
    std::vector<float> known, sorted;
    for (int column = 0; column < t.width; column++) {
        if (std::isnan(whole[column])) continue;
        sorted.push_back(whole[column]);
        if (column >= from && column < to) known.push_back(whole[column]);
    }
    if (sorted.size() < 30 || known.empty() || std::isnan(whole[centre])) return 0;
    std::sort(sorted.begin(), sorted.end());
    double light = sorted[sorted.size() * 95 / 100], dark = *std::min_element(known.begin(), known.end());
    if (light - dark < 20) return 0;
    int lo, hi;
    if (!extent(whole, centre, std::max(0, from), std::min(t.width, to), light, dark, &lo, &hi)) return 0;
    if (hi - lo < 95) return 0;  // under a pixel a module

    // The whole band decides where the symbol lies and how blurred it is, both ways round; each
    // half is then read on its own with that model, so two halves agreeing are two reads.
    Read best = lookout::ean13::search(whole, lo, hi, light, dark);
    if (best.digits[0] == 0) return 0;
    for (int i = 0; i < 2; i++) {
        if (best.reversed) std::reverse(halves[i].begin(), halves[i].end());
        Read half = lookout::ean13::refine(halves[i], best.at);
        if (half.digits[0] == 0) continue;
        // Dark bars on light, explained, not blurred past the model, and the whole middle's digits.
        bool stands = half.at.contrast < 0 && half.explained >= leastExplained(half.at.sigma) && half.at.sigma <= mostBlur
            && std::strcmp(half.digits, best.digits) == 0;
        if (stands) std::memcpy(bands[i].digits, half.digits, sizeof bands[i].digits);
        bands[i].fit = (float)half.fit;
        bands[i].explained = (float)half.explained;
        bands[i].sigma = (float)half.at.sigma;
    }
    // Corners in reading order: where the symbol starts, top then bottom, then where it ends.
    const Hypothesis &h = best.at;
    double start = h.x0, end = h.x0 + 95 * h.width;
    if (best.reversed) start = (double)whole.size() - 1 - start, end = (double)whole.size() - 1 - end;
    double up = best.reversed ? bottom + 1 : top, down = best.reversed ? top : bottom + 1;
    t.point(t.u0 + start, t.v0 + up, corners);
    t.point(t.u0 + start, t.v0 + down, corners + 2);
    t.point(t.u0 + end, t.v0 + down, corners + 4);
    t.point(t.u0 + end, t.v0 + up, corners + 6);
    return 1;
}
