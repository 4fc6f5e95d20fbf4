// Places that look like a symbol (see lk_zx_locate in CZXing.h): cells with strong contrast and
// many dark-light transitions both across and down (a matrix symbol), or at least one way (the
// bars of PDF417 rows: level bars cross a cell's rows only, leaning ones its columns too), joined
// into blocks; and pieces of one leaning symbol of rows joined again.
#include "CZXing.h"
#include "Upright.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace {
struct Block {
    int left, top, right, bottom, cells;
};

// The blocks of `cell`-pixel cells of an image that look like a symbol of `kind`, in cells.
std::vector<Block> blocks_of(const unsigned char *gray, int width, int height, int stride, int cell, int kind) {
    int columns = width / cell, rows = height / cell;
    std::vector<unsigned char> textured((size_t)columns * rows, 0);
    for (int row = 0; row < rows; row++) {
        for (int column = 0; column < columns; column++) {
            const unsigned char *origin = gray + (size_t)row * cell * stride + (size_t)column * cell;
            int low = 255, high = 0;
            for (int y = 0; y < cell; y += 2) {
                for (int x = 0; x < cell; x += 2) {
                    int value = origin[(size_t)y * stride + x];
                    low = std::min(low, value);
                    high = std::max(high, value);
                }
            }
            if (high - low < 48) continue;
            int middle = (low + high) / 2, across = 0, down = 0;
            // Transitions along every other row and every other column of the cell.
            for (int y = 0; y < cell; y += 2) {
                const unsigned char *line = origin + (size_t)y * stride;
                for (int x = 1; x < cell; x++) across += (line[x - 1] < middle) != (line[x] < middle);
            }
            for (int x = 0; x < cell; x += 2) {
                for (int y = 1; y < cell; y++) {
                    down += (origin[(size_t)(y - 1) * stride + x] < middle) != (origin[(size_t)y * stride + x] < middle);
                }
            }
            // A matrix: a module edge every few pixels both ways, not a single edge, a line of text
            // or bars only. Rows of bars: an edge every few pixels at least one way (both, leaning).
            int enough = cell / 2;
            textured[(size_t)row * columns + column] = kind == LK_ZX_PLACES_ROWS
                ? std::max(across, down) >= enough : across >= enough && down >= enough;
        }
    }
    // Blocks of touching textured cells (8-neighbourhood), by a flood fill.
    std::vector<Block> blocks;
    std::vector<int> stack;
    for (int start = 0; start < columns * rows; start++) {
        if (textured[start] != 1) continue;
        Block block = {start % columns, start / columns, start % columns, start / columns, 0};
        stack.assign(1, start);
        textured[start] = 2;
        while (!stack.empty()) {
            int index = stack.back();
            stack.pop_back();
            int cx = index % columns, cy = index / columns;
            block.cells += 1;
            block.left = std::min(block.left, cx);
            block.right = std::max(block.right, cx);
            block.top = std::min(block.top, cy);
            block.bottom = std::max(block.bottom, cy);
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    int nx = cx + dx, ny = cy + dy;
                    if (nx < 0 || ny < 0 || nx >= columns || ny >= rows) continue;
                    int next = ny * columns + nx;
                    if (textured[next] == 1) {
                        textured[next] = 2;
                        stack.push_back(next);
                    }
                }
            }
        }
        int w = block.right - block.left + 1, h = block.bottom - block.top + 1;
        // A symbol fills most of its box and is at least 3 cells each way; a long row code
        // leaning by 15 degrees fills 2/5 of its box.
        int fill = kind == LK_ZX_PLACES_ROWS ? 4 : 2;
        if (w >= 3 && h >= 3 && block.cells * fill >= w * h) blocks.push_back(block);
    }
    return blocks;
}

// The degrees between two leans modulo 90 (0 to 45).
float lean_apart(float a, float b) {
    float d = std::fmod(std::fabs(a - b), 90.0f);
    return std::min(d, 90.0f - d);
}

// Pieces of one leaning symbol of rows joined: glare across a ticket, or modules about a cell
// wide, break its texture into blocks that no turn reads alone (the start pattern in one, the
// stop pattern in another). Two blocks join when their edges lean alike, by 3 degrees or more
// (a level symbol is read as it is, whole), the line between their middles runs along their rows
// or bars, and the gap between them is at most the longer side of either; each group of two or
// more blocks becomes one block round them, its cells theirs. A block over a quarter of the image
// is no piece (a textured ground).
std::vector<Block> joined(const std::vector<Block> &blocks, const unsigned char *gray, int stride, int cell, int image_cells) {
    std::vector<Block> pieces;
    for (const Block &b : blocks) {
        if ((b.right - b.left + 1) * (b.bottom - b.top + 1) * 4 <= image_cells) pieces.push_back(b);
    }
    size_t count = pieces.size();
    std::vector<float> lean(count);
    for (size_t i = 0; i < count; i++) {
        const Block &b = pieces[i];
        lean[i] = lookout::edge_lean(gray + (size_t)b.top * cell * stride + (size_t)b.left * cell,
                                     (b.right - b.left + 1) * cell, (b.bottom - b.top + 1) * cell, stride);
    }
    std::vector<size_t> group(count);
    std::iota(group.begin(), group.end(), 0);
    auto root = [&group](size_t i) {
        while (group[i] != i) i = group[i] = group[group[i]];
        return i;
    };
    for (size_t i = 0; i < count; i++) {
        if (std::fabs(lean[i]) < 3) continue;
        const Block &a = pieces[i];
        for (size_t j = i + 1; j < count; j++) {
            const Block &b = pieces[j];
            if (std::fabs(lean[j]) < 3 || lean_apart(lean[i], lean[j]) > 3) continue;
            float gx = std::max({0, b.left - a.right - 1, a.left - b.right - 1});
            float gy = std::max({0, b.top - a.bottom - 1, a.top - b.bottom - 1});
            int longer = std::max({a.right - a.left, a.bottom - a.top, b.right - b.left, b.bottom - b.top}) + 1;
            if (std::hypot(gx, gy) > longer) continue;
            float dx = (b.left + b.right - a.left - a.right) / 2.0f, dy = (b.top + b.bottom - a.top - a.bottom) / 2.0f;
            float along = (float)(std::atan2(dy, dx) * 180 / M_PI);
            if (std::hypot(dx, dy) >= 2 && lean_apart(along, (lean[i] + lean[j]) / 2) > 10) continue;
            group[root(j)] = root(i);
        }
    }
    std::vector<Block> groups;
    std::vector<int> members(count, 0), index(count, -1);
    for (size_t i = 0; i < count; i++) members[root(i)] += 1;
    for (size_t i = 0; i < count; i++) {
        size_t r = root(i);
        if (members[r] < 2) continue;
        if (index[r] < 0) {
            index[r] = (int)groups.size();
            groups.push_back({pieces[i].left, pieces[i].top, pieces[i].right, pieces[i].bottom, 0});
        }
        Block &b = groups[(size_t)index[r]];
        b.left = std::min(b.left, pieces[i].left);
        b.top = std::min(b.top, pieces[i].top);
        b.right = std::max(b.right, pieces[i].right);
        b.bottom = std::max(b.bottom, pieces[i].bottom);
        b.cells += pieces[i].cells;
    }
    return groups;
}
} // namespace

extern "C" int lk_zx_locate(const unsigned char *gray, int width, int height, int stride, int cell, int kind,
                            lk_zx_region *out, int capacity) {
    if (cell < 4 || width < 2 * cell || height < 2 * cell || capacity <= 0) return 0;
    if (kind < LK_ZX_PLACES_MATRIX || kind > LK_ZX_PLACES_ROWS_JOINED) return 0;
    std::vector<Block> blocks = blocks_of(gray, width, height, stride, cell, kind == LK_ZX_PLACES_MATRIX ? kind : LK_ZX_PLACES_ROWS);
    if (kind == LK_ZX_PLACES_ROWS_JOINED) blocks = joined(blocks, gray, stride, cell, (width / cell) * (height / cell));
    // Densest first; then the largest.
    std::sort(blocks.begin(), blocks.end(), [](const Block &a, const Block &b) { return a.cells > b.cells; });
    int count = 0;
    for (const Block &block : blocks) {
        if (count >= capacity) break;
        // The block with a margin of a cell and a tenth of its size: the quiet zone and a border.
        int w = (block.right - block.left + 1) * cell, h = (block.bottom - block.top + 1) * cell;
        int mx = cell + w / 10, my = cell + h / 10;
        int x = std::max(0, block.left * cell - mx), y = std::max(0, block.top * cell - my);
        out[count++] = {x, y, std::min(width, block.left * cell + w + mx) - x, std::min(height, block.top * cell + h + my) - y, 1};
    }
    return count;
}
