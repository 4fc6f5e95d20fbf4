// EAN-13 as a blurred sequence of modules, and the maximum-likelihood symbol for a profile.
#include "EAN13Model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lookout::ean13 {
namespace {

// Set A (L), set B (G) and set C (R) of each digit, modules dark = 1, and the sets of the six
// left digits that encode the first digit (0 = A, 1 = B).
const char *const setA[10] = {"0001101", "0011001", "0010011", "0111101", "0100011",
                              "0110001", "0101111", "0111011", "0110111", "0001011"};
const char *const parities[10] = {"000000", "001011", "001101", "001110", "010011",
                                  "011001", "011100", "010101", "010110", "011010"};
constexpr int modules = 95, perModule = 2;

struct Patterns {
    // [0, 10): set A, [10, 20): set B, [20, 30): set C.
    unsigned char bits[30][7];
    Patterns() {
        for (int d = 0; d < 10; d++) {
            for (int i = 0; i < 7; i++) {
                bits[d][i] = setA[d][i] == '1';
                bits[20 + d][i] = !bits[d][i];
            }
            for (int i = 0; i < 7; i++) bits[10 + d][i] = bits[20 + d][6 - i];  // B is C backwards
        }
    }
};
const Patterns patterns;

// Where digit k (1 to 12) starts, in modules; guards are 101 at 0, 01010 at 45 and 101 at 92.
int start(int k) { return k <= 6 ? 3 + 7 * (k - 1) : 50 + 7 * (k - 7); }
bool guardDark(int m) { return m == 0 || m == 2 || m == 46 || m == 48 || m == 92 || m == 94; }
int weight(int k) { return k % 2 ? 3 : 1; }

// The response at t (in modules) to a dark module [m, m + 1] blurred by a Gaussian of sigma.
double response(double t, int m, double sigma) {
    double s = sigma * M_SQRT2;
    return 0.5 * (std::erf((t - m) / s) - std::erf((t - m - 1) / s));
}

double sample(const std::vector<float> &p, double x) {
    if (x <= 0) return p.front();
    if (x >= (double)p.size() - 1) return p.back();
    size_t i = (size_t)x;
    double f = x - (double)i;
    return p[i] + (p[i + 1] - p[i]) * f;
}

// The modules of a symbol, dark = 1.
void symbolModules(const char *digits, unsigned char *out) {
    std::memset(out, 0, modules);
    for (int m = 0; m < modules; m++) out[m] = guardDark(m);
    const char *parity = parities[digits[0] - '0'];
    for (int k = 1; k <= 12; k++) {
        int d = digits[k] - '0', set = k <= 6 ? (parity[k - 1] == '1' ? 10 : 0) : 20;
        std::memcpy(out + start(k), patterns.bits[set + d], 7);
    }
}

// Samples lie at t = n / 2 + 1/4 (a segment starts at -4 or at a digit's centre, k + 1/2, and
// samples are half a module apart), so t - m for a module m within 4 of a sample takes a few
// values only: key 2 (t - m) - 1/2, from -8 to 9.
static_assert(perModule == 2, "Responses keys samples half a module apart");
struct Responses {
    double values[20];
    explicit Responses(const Hypothesis &h) {
        for (int key = -10; key < 10; key++) values[key + 10] = h.contrast * response((key + 0.5) / 2, 0, h.sigma);
    }
    double at(double t, int m) const { return values[(int)std::lround(2 * (t - m) - 0.5) + 10]; }
};

// The squared residual over samples [t0, t1) of every pair of patterns of the digits either
// side (`a` of digit ka, `b` of digit kb; 0 for a guard and quiet zone only).
void segmentErrors(const std::vector<float> &p, const Hypothesis &h, const Responses &responses, double t0, double t1, int ka, int kb,
                   double *errors) {
    double r[32], ca[20][32], cb[20][32];
    int n = std::min(32, (int)std::lround((t1 - t0) * perModule));
    int na = ka == 0 ? 1 : ka <= 6 ? 20 : 10, nb = kb == 0 ? 1 : kb <= 6 ? 20 : 10;
    int offsetA = ka > 6 ? 20 : 0, offsetB = kb > 6 ? 20 : 0;
    for (int j = 0; j < n; j++) {
        double t = t0 + (j + 0.5) / perModule, x = h.x0 + t * h.width;
        r[j] = sample(p, x) - (h.light + h.slope * x);
        for (int q = 0; q < 20; q++) ca[q][j] = cb[q][j] = 0;
        // Modules beyond four of t respond by under 1e-4 of the contrast at a blur of a module
        // (and 4e-3 at the 1.2 a read may have).
        for (int m = (int)std::floor(t) - 4; m <= (int)std::floor(t) + 4; m++) {
            if (m < 0 || m >= modules) continue;
            double k = responses.at(t, m);
            if (guardDark(m)) r[j] -= k;
            if (ka && m >= start(ka) && m < start(ka) + 7) {
                for (int q = 0; q < na; q++) ca[q][j] += patterns.bits[offsetA + q][m - start(ka)] * k;
            }
            if (kb && m >= start(kb) && m < start(kb) + 7) {
                for (int q = 0; q < nb; q++) cb[q][j] += patterns.bits[offsetB + q][m - start(kb)] * k;
            }
        }
    }
    for (int a = 0; a < na; a++) {
        for (int b = 0; b < nb; b++) {
            double sum = 0;
            for (int j = 0; j < n; j++) {
                double e = r[j] - ca[a][j] - cb[b][j];
                sum += e * e;
            }
            errors[a * nb + b] = sum;
        }
    }
}

// Fits contrast, light and slope to the symbol by least squares; false when too few samples.
bool fitLevels(const std::vector<float> &p, Hypothesis &h, const char *digits, double *rms, double *explained) {
    unsigned char bits[modules];
    symbolModules(digits, bits);
    double m[3][3] = {}, v[3] = {};
    int count = 0;
    std::vector<double> shapes, xs, ys, ts;
    for (double t = -10; t < modules + 10; t += 1.0 / perModule) {
        double x = h.x0 + t * h.width;
        if (x < 0 || x > (double)p.size() - 1) continue;
        double shape = 0;
        for (int k = (int)std::floor(t) - 4; k <= (int)std::floor(t) + 4; k++) {
            if (k >= 0 && k < modules && bits[k]) shape += response(t, k, h.sigma);
        }
        double row[3] = {shape, 1, x}, y = sample(p, x);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) m[i][j] += row[i] * row[j];
            v[i] += row[i] * y;
        }
        shapes.push_back(shape), xs.push_back(x), ys.push_back(y), ts.push_back(t);
        count++;
    }
    if (count < modules * perModule) return false;
    // Cramer's rule on the 3x3 normal equations.
    auto det = [](double a[3][3]) {
        return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
               a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    };
    double d = det(m);
    if (!(std::fabs(d) > 1e-9)) return false;
    double solution[3];
    for (int c = 0; c < 3; c++) {
        double replaced[3][3];
        std::memcpy(replaced, m, sizeof replaced);
        for (int i = 0; i < 3; i++) replaced[i][c] = v[i];
        solution[c] = det(replaced) / d;
    }
    h.contrast = solution[0], h.light = solution[1], h.slope = solution[2];
    // The residual everywhere, and the share of the symbol's own variance the model explains.
    double sum = 0, inside = 0, mean = 0, variance = 0;
    int within = 0;
    for (size_t i = 0; i < ys.size(); i++) {
        double e = ys[i] - (h.contrast * shapes[i] + h.light + h.slope * xs[i]);
        sum += e * e;
        if (ts[i] >= 0 && ts[i] < modules) inside += e * e, mean += ys[i], within++;
    }
    if (within == 0) return false;
    mean /= within;
    for (size_t i = 0; i < ys.size(); i++) {
        if (ts[i] >= 0 && ts[i] < modules) variance += (ys[i] - mean) * (ys[i] - mean);
    }
    *rms = std::sqrt(sum / (double)count);
    *explained = variance > 0 ? 1 - inside / variance : 0;
    return true;
}

std::vector<float> filled(const std::vector<float> &profile) {
    std::vector<float> p = profile;
    float last = NAN;
    for (float &v : p) std::isnan(v) ? (void)(v = last) : (void)(last = v);
    last = NAN;
    for (auto v = p.rbegin(); v != p.rend(); ++v) std::isnan(*v) ? (void)(*v = last) : (void)(last = *v);
    return p;
}

}  // namespace

Read decode(const std::vector<float> &p, const Hypothesis &h, bool exact) {
    Read best;
    best.cost = INFINITY;
    best.at = h;
    if (p.size() < 2 || !(h.width > 0) || !(h.sigma > 0)) return best;
    // errors[k]: between digit k's centre and digit k + 1's (k = 0: the start; 12: the end).
    static thread_local double errors[13][400];
    double centre[13];
    for (int k = 1; k <= 12; k++) centre[k] = start(k) + 3.5;
    const Responses responses(h);
    segmentErrors(p, h, responses, -4, centre[1], 0, 1, errors[0]);
    for (int k = 1; k < 12; k++) segmentErrors(p, h, responses, centre[k], centre[k + 1], k, k + 1, errors[k]);
    segmentErrors(p, h, responses, centre[12], modules + 4, 12, 0, errors[12]);
    if (!exact) {
        // The best cost over every pattern of every digit, parities and check digit aside: a
        // bound from below that ranks hypotheses as well, at a fraction of the exact programme.
        double cost[20], next[20];
        for (int q = 0; q < 20; q++) cost[q] = errors[0][q];
        for (int k = 2; k <= 12; k++) {
            int from = k - 1 <= 6 ? 20 : 10, to = k <= 6 ? 20 : 10;
            for (int q = 0; q < to; q++) {
                next[q] = INFINITY;
                for (int r = 0; r < from; r++) next[q] = std::min(next[q], cost[r] + errors[k - 1][r * to + q]);
            }
            std::copy(next, next + to, cost);
        }
        for (int q = 0; q < 10; q++) best.cost = std::min(best.cost, cost[q] + errors[12][q]);
        return best;
    }
    // Digit k's pattern index among its digit's patterns (20 on the left, 10 on the right).
    for (int first = 0; first < 10; first++) {
        const char *parity = parities[first];
        auto index = [&](int k, int d) { return k <= 6 && parity[k - 1] == '1' ? 10 + d : d; };
        auto count = [](int k) { return k <= 6 ? 20 : 10; };
        double cost[10][10], next[10][10];
        unsigned char back[13][10][10];
        for (auto &row : cost) std::fill(row, row + 10, INFINITY);
        for (int d = 0; d < 10; d++) cost[d][(first + weight(1) * d) % 10] = errors[0][index(1, d)];
        for (int k = 2; k <= 12; k++) {
            for (auto &row : next) std::fill(row, row + 10, INFINITY);
            for (int d = 0; d < 10; d++) {
                for (int previous = 0; previous < 10; previous++) {
                    double e = errors[k - 1][index(k - 1, previous) * count(k) + index(k, d)];
                    for (int s = 0; s < 10; s++) {
                        double c = cost[previous][s] + e;
                        int to = (s + weight(k) * d) % 10;
                        if (c < next[d][to]) next[d][to] = c, back[k][d][to] = (unsigned char)(previous * 10 + s);
                    }
                }
            }
            std::memcpy(cost, next, sizeof cost);
        }
        for (int d = 0; d < 10; d++) {
            double c = cost[d][0] + errors[12][index(12, d)];
            if (!(c < best.cost)) continue;
            best.cost = c;
            best.digits[0] = (char)('0' + first);
            int digit = d, sum = 0;
            for (int k = 12; k >= 1; k--) {
                best.digits[k] = (char)('0' + digit);
                if (k == 1) break;
                unsigned char from = back[k][digit][sum];
                digit = from / 10, sum = from % 10;
            }
            best.digits[13] = 0;
        }
    }
    return best;
}

Read refine(const std::vector<float> &profile, const Hypothesis &at) {
    std::vector<float> p = filled(profile);
    Read current = decode(p, at);
    for (int round = 0; round < 3 && current.digits[0]; round++) {
        Hypothesis fitted = current.at;
        double rms, explained;
        if (!fitLevels(p, fitted, current.digits, &rms, &explained)) return Read{};
        current.fit = rms > 0 ? std::fabs(fitted.contrast) / rms : 0;
        current.explained = explained;
        current.at = fitted;
        if (round == 2) break;
        // The neighbours ranked by the bound, the best then decoded exactly.
        Hypothesis chosen = fitted;
        double least = decode(p, fitted, false).cost;
        for (double ds : {-0.1, 0.0, 0.1}) {
            for (double dw : {-0.005, 0.0, 0.005}) {
                for (double dx : {-0.2, 0.0, 0.2}) {
                    Hypothesis h = fitted;
                    h.sigma = std::clamp(h.sigma + ds, 0.2, 1.6), h.width *= 1 + dw, h.x0 += dx * fitted.width;
                    double cost = decode(p, h, false).cost;
                    if (cost < least) least = cost, chosen = h;
                }
            }
        }
        current = decode(p, chosen);
    }
    return current;
}

Read search(const std::vector<float> &profile, int lo, int hi, double light, double dark) {
    Read chosen;
    for (bool reversed : {false, true}) {
        std::vector<float> p = filled(profile);
        int from = lo, to = hi;
        if (reversed) std::reverse(p.begin(), p.end()), from = (int)p.size() - 1 - hi, to = (int)p.size() - 1 - lo;
        double width = (to - from) / (double)modules;
        // Where the symbol starts and how wide a module is, at a middling blur; then the blur, at
        // the three best places (a ninth of the decodes of searching all three at once).
        std::vector<Read> placed;
        for (int w = -4; w <= 4; w++) {
            for (int x = -6; x <= 6; x++) {
                Hypothesis h;
                h.x0 = from + x * 0.5 * width, h.width = width * (1 + 0.02 * w), h.sigma = 0.65;
                h.contrast = (dark - light) * 1.1, h.light = light;
                placed.push_back(decode(p, h, false));
            }
        }
        std::partial_sort(placed.begin(), placed.begin() + 3, placed.end(), [](const Read &a, const Read &b) { return a.cost < b.cost; });
        Read best;
        best.cost = INFINITY;
        for (int i = 0; i < 3; i++) {
            for (double sigma : {0.45, 0.65, 0.85, 1.05}) {
                Hypothesis h = placed[i].at;
                h.sigma = sigma;
                Read r = decode(p, h, false);
                if (r.cost < best.cost) best = r;
            }
        }
        if (!std::isfinite(best.cost)) continue;
        Read refined = refine(p, best.at);
        refined.reversed = reversed;
        if (refined.digits[0] && refined.fit > chosen.fit) chosen = refined;
    }
    return chosen;
}

}  // namespace lookout::ean13
