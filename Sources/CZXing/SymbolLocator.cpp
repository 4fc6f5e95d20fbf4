// Places that look like a symbol (see lk_zx_locate in CZXing.h): cells with strong contrast and
// many dark-light transitions both across and down (a matrix symbol), or at least one way (the
// bars of PDF417 rows: level bars cross a cell's rows only, leaning ones its columns too), joined
// into blocks.
#include "CZXing.h"

#include <algorithm>
#include <vector>

namespace {
struct Block {
    int left, top, right, bottom, cells;
};
} // namespace

extern "C" int lk_zx_locate(const unsigned char *gray, int width, int height, int stride, int cell, int kind,
                            lk_zx_region *out, int capacity) {
    if (cell < 4 || width < 2 * cell || height < 2 * cell || capacity <= 0) return 0;
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
