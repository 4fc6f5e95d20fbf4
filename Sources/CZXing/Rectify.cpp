// Finding a symbol's outline in a region and standing it square (see Rectify.hpp).
#include "Rectify.hpp"
#include "CZXing.h"
#include "Upright.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace lookout {

namespace {

struct Point {
    float x, y;
};

float cross(const Point &o, const Point &a, const Point &b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// Andrew's monotone chain; `points` is sorted and emptied of duplicates here.
std::vector<Point> convex_hull(std::vector<Point> points) {
    std::sort(points.begin(), points.end(), [](const Point &a, const Point &b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    points.erase(std::unique(points.begin(), points.end(), [](const Point &a, const Point &b) { return a.x == b.x && a.y == b.y; }),
                 points.end());
    if (points.size() < 3) return points;
    std::vector<Point> hull(points.size() * 2);
    size_t k = 0;
    for (size_t i = 0; i < points.size(); i++) {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], points[i]) <= 0) k--;
        hull[k++] = points[i];
    }
    for (size_t i = points.size() - 1, lower = k + 1; i > 0; i--) {
        while (k >= lower && cross(hull[k - 2], hull[k - 1], points[i - 1]) <= 0) k--;
        hull[k++] = points[i - 1];
    }
    hull.resize(k - 1);
    return hull;
}

// The cells a fifth of whose pixels are strong edges (a step of over 24 levels a pixel, taken
// across two pixels), with gaps of one cell closed.
std::vector<uint8_t> busy_cells(const unsigned char *origin, int width, int height, int stride, int cell, int columns, int rows) {
    std::vector<uint8_t> busy((size_t)columns * rows, 0);
    for (int cy = 0; cy < rows; cy++) {
        for (int cx = 0; cx < columns; cx++) {
            int edges = 0, pixels = 0;
            for (int y = std::max(1, cy * cell); y < std::min(height - 1, (cy + 1) * cell); y++) {
                const unsigned char *row = origin + (size_t)y * stride;
                for (int x = std::max(1, cx * cell); x < std::min(width - 1, (cx + 1) * cell); x++) {
                    int gx = row[x + 1] - row[x - 1], gy = row[x + stride] - row[x - stride];
                    edges += gx * gx + gy * gy > 48 * 48;
                    pixels++;
                }
            }
            busy[(size_t)cy * columns + cx] = pixels > 0 && edges * 5 > pixels;
        }
    }
    // Closing: grown by a cell (4-neighbours), then shrunk back; the border does not shrink it.
    auto at = [&](const std::vector<uint8_t> &map, int x, int y, uint8_t outside) {
        return x < 0 || y < 0 || x >= columns || y >= rows ? outside : map[(size_t)y * columns + x];
    };
    std::vector<uint8_t> grown(busy.size());
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < columns; x++)
            grown[(size_t)y * columns + x] = at(busy, x, y, 0) | at(busy, x - 1, y, 0) | at(busy, x + 1, y, 0) | at(busy, x, y - 1, 0) | at(busy, x, y + 1, 0);
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < columns; x++)
            busy[(size_t)y * columns + x] = at(grown, x, y, 1) & at(grown, x - 1, y, 1) & at(grown, x + 1, y, 1) & at(grown, x, y - 1, 1) & at(grown, x, y + 1, 1);
    return busy;
}

// Solves the 8x8 system a x = b by Gaussian elimination with partial pivoting; false when singular.
bool solve(double a[8][8], double b[8], double x[8]) {
    for (int c = 0; c < 8; c++) {
        int pivot = c;
        for (int r = c + 1; r < 8; r++) if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
        if (std::fabs(a[pivot][c]) < 1e-9) return false;
        std::swap(a[c], a[pivot]);
        std::swap(b[c], b[pivot]);
        for (int r = c + 1; r < 8; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 8; k++) a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = 7; r >= 0; r--) {
        double sum = b[r];
        for (int k = r + 1; k < 8; k++) sum -= a[r][k] * x[k];
        x[r] = sum / a[r][r];
    }
    return true;
}

float distance(float x0, float y0, float x1, float y1) { return std::hypot(x1 - x0, y1 - y0); }

} // namespace

bool symbol_outline(const unsigned char *origin, int width, int height, int stride, int cell, Quad &rectangle, Quad &corners) {
    if (cell < 2) return false;
    int columns = width / cell, rows = height / cell;
    if (columns < 4 || rows < 4) return false;
    std::vector<uint8_t> busy = busy_cells(origin, width, height, stride, cell, columns, rows);
    // The largest 4-connected patch (labelled, then measured); of each of its rows only the
    // ends matter for the hull.
    std::vector<int> label(busy.size(), 0), stack;
    int next = 0, best = 0;
    size_t best_size = 0;
    for (size_t start = 0; start < busy.size(); start++) {
        if (!busy[start] || label[start]) continue;
        label[start] = ++next;
        stack.assign(1, (int)start);
        size_t size = 0;
        while (!stack.empty()) {
            int index = stack.back();
            stack.pop_back();
            int x = index % columns, y = index / columns;
            size++;
            const int neighbours[4][2] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
            for (const auto &n : neighbours) {
                if (n[0] < 0 || n[1] < 0 || n[0] >= columns || n[1] >= rows) continue;
                size_t other = (size_t)n[1] * columns + n[0];
                if (busy[other] && !label[other]) {
                    label[other] = next;
                    stack.push_back((int)other);
                }
            }
        }
        if (size > best_size) best_size = size, best = next;
    }
    if (best_size < 12) return false;
    std::vector<Point> points;
    for (int y = 0; y < rows; y++) {
        const int *row = label.data() + (size_t)y * columns;
        int first = -1, last = -1;
        for (int x = 0; x < columns; x++) {
            if (row[x] != best) continue;
            if (first < 0) first = x;
            last = x;
        }
        if (first < 0) continue;
        for (int x : {first, last + 1})
            for (int dy : {0, 1}) points.push_back({(float)(x * cell), (float)((y + dy) * cell)});
    }
    std::vector<Point> hull = convex_hull(std::move(points));
    if (hull.size() < 3) return false;
    // The smallest rectangle holding the hull has a side along one of its edges.
    float best_area = -1;
    for (size_t i = 0; i < hull.size(); i++) {
        const Point &p = hull[i], &q = hull[(i + 1) % hull.size()];
        float length = distance(p.x, p.y, q.x, q.y);
        if (length == 0) continue;
        float ux = (q.x - p.x) / length, uy = (q.y - p.y) / length, vx = -uy, vy = ux;
        float a0 = 1e30f, a1 = -1e30f, b0 = 1e30f, b1 = -1e30f;
        for (const Point &h : hull) {
            float a = h.x * ux + h.y * uy, b = h.x * vx + h.y * vy;
            a0 = std::min(a0, a), a1 = std::max(a1, a), b0 = std::min(b0, b), b1 = std::max(b1, b);
        }
        float area = (a1 - a0) * (b1 - b0);
        if (best_area >= 0 && area >= best_area) continue;
        best_area = area;
        // (a, b) to (x, y): x = a ux + b vx, y = a uy + b vy; clockwise on screen (y down).
        const float as[4] = {a0, a1, a1, a0}, bs[4] = {b0, b0, b1, b1};
        for (int k = 0; k < 4; k++) {
            rectangle.x[k] = as[k] * ux + bs[k] * vx;
            rectangle.y[k] = as[k] * uy + bs[k] * vy;
        }
    }
    if (best_area <= 0) return false;
    for (int k = 0; k < 4; k++) {
        const Point *nearest = &hull[0];
        for (const Point &h : hull)
            if (distance(h.x, h.y, rectangle.x[k], rectangle.y[k]) < distance(nearest->x, nearest->y, rectangle.x[k], rectangle.y[k])) nearest = &h;
        corners.x[k] = nearest->x;
        corners.y[k] = nearest->y;
    }
    return true;
}

bool plan_rectified(const Quad &quad, float margin, int max_pixels, Rectified &rectified) {
    if (!std::isfinite(margin)) return false;
    for (int k = 0; k < 4; k++)
        if (!std::isfinite(quad.x[k]) || !std::isfinite(quad.y[k])) return false;
    float across = std::max(distance(quad.x[0], quad.y[0], quad.x[1], quad.y[1]), distance(quad.x[3], quad.y[3], quad.x[2], quad.y[2]));
    float down = std::max(distance(quad.x[0], quad.y[0], quad.x[3], quad.y[3]), distance(quad.x[1], quad.y[1], quad.x[2], quad.y[2]));
    if (across < 16 || down < 16 || margin < 0 || margin >= 0.5f) return false;
    double w = std::ceil(across / (1 - 2 * margin)), h = std::ceil(down / (1 - 2 * margin));
    if (w * h > max_pixels) return false;
    // The copy's corners of the quad, and the homography from the copy to the region.
    const double dx[4] = {margin * w, (1 - margin) * w, (1 - margin) * w, margin * w};
    const double dy[4] = {margin * h, margin * h, (1 - margin) * h, (1 - margin) * h};
    double a[8][8], b[8];
    for (int k = 0; k < 4; k++) {
        double x = dx[k], y = dy[k], u = quad.x[k], v = quad.y[k];
        double first[8] = {x, y, 1, 0, 0, 0, -u * x, -u * y}, second[8] = {0, 0, 0, x, y, 1, -v * x, -v * y};
        std::copy(first, first + 8, a[2 * k]);
        std::copy(second, second + 8, a[2 * k + 1]);
        b[2 * k] = u;
        b[2 * k + 1] = v;
    }
    if (!solve(a, b, rectified.h)) return false;
    // A nearly singular system can solve to infinities: no copy to sample through them.
    for (double term : rectified.h)
        if (!std::isfinite(term)) return false;
    rectified.width = (int)w;
    rectified.height = (int)h;
    return true;
}

void sample_rectified(const unsigned char *origin, int width, int height, int stride, const Rectified &rectified,
                      unsigned char *out) {
    for (int y = 0; y < rectified.height; y++) {
        unsigned char *to = out + (size_t)y * rectified.width;
        for (int x = 0; x < rectified.width; x++) {
            float sx, sy;
            rectified.source((float)x, (float)y, sx, sy);
            to[x] = sample_bilinear(origin, width, height, stride, sx, sy);
        }
    }
}

bool rectify(const unsigned char *origin, int width, int height, int stride, const Quad &quad, float margin, int max_pixels,
             std::vector<unsigned char> &out, Rectified &rectified) {
    if (!plan_rectified(quad, margin, max_pixels, rectified)) return false;
    out.resize((size_t)rectified.width * rectified.height);
    sample_rectified(origin, width, height, stride, rectified, out.data());
    return true;
}

} // namespace lookout

extern "C" int lk_zx_rectify(const unsigned char *gray, int width, int height, int stride, const float *quad, float margin,
                             unsigned char *out, int capacity, int *copy_width, int *copy_height, double *homography) {
    if (!gray || !quad || !copy_width || !copy_height || !homography || width <= 0 || height <= 0 || stride < width) return -1;
    lookout::Quad corners;
    for (int k = 0; k < 4; k++) corners.x[k] = quad[2 * k], corners.y[k] = quad[2 * k + 1];
    lookout::Rectified rectified;
    if (!lookout::plan_rectified(corners, margin, 16 << 20, rectified)) return -1;
    *copy_width = rectified.width;
    *copy_height = rectified.height;
    if (!out || (long long)rectified.width * rectified.height > capacity) return 1;
    lookout::sample_rectified(gray, width, height, stride, rectified, out);
    std::copy(rectified.h, rectified.h + 8, homography);
    return 0;
}
