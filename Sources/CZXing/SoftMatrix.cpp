// DataMatrix and QR decoded again with erasures (see SoftMatrix.hpp).
#include "SoftMatrix.hpp"
#include "SymbolLayout.hpp"
#include "ReedSolomon.hpp"
#include "Upright.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>

namespace lookout {

namespace {

// Check codewords a block must leave unused: each makes a wrong codeword that passes 256 times
// less likely, and a block is tried with up to a few dozen erasure sets.
constexpr int spare_checks = 3;
// Modules either side of a module whose mean gray is its level to be judged against.
constexpr int level_reach = 3;

// What each module's gray level says: how much darker its centre is than the mean of the modules
// round it (negative: lighter), the other way round for an inverted symbol.
std::vector<float> module_darkness(const unsigned char *gray, int width, int height, int stride,
                                   const FoundSymbol &symbol, const Rectified &grid) {
    const int columns = symbol.columns, rows = symbol.rows;
    std::vector<float> level((size_t)columns * rows);
    for (int row = 0; row < rows; row++) {
        for (int column = 0; column < columns; column++) {
            // The centre and four points a quarter module from it, in the grid's copy.
            float sum = 0;
            const float offsets[5][2] = {{0, 0}, {-0.25f, -0.25f}, {0.25f, -0.25f}, {-0.25f, 0.25f}, {0.25f, 0.25f}};
            for (const auto &offset : offsets) {
                float x = (column + 0.5f + offset[0]) * grid.width / columns;
                float y = (row + 0.5f + offset[1]) * grid.height / rows;
                float sx, sy;
                grid.source(x, y, sx, sy);
                sum += sample_bilinear(gray, width, height, stride, sx, sy);
            }
            level[(size_t)row * columns + column] = sum / 5;
        }
    }
    // Sums over the grid make each module's neighbourhood mean one lookup.
    std::vector<double> sums((size_t)(columns + 1) * (rows + 1), 0);
    for (int row = 0; row < rows; row++)
        for (int column = 0; column < columns; column++)
            sums[(size_t)(row + 1) * (columns + 1) + column + 1] = level[(size_t)row * columns + column]
                + sums[(size_t)row * (columns + 1) + column + 1] + sums[(size_t)(row + 1) * (columns + 1) + column]
                - sums[(size_t)row * (columns + 1) + column];
    std::vector<float> darkness(level.size());
    for (int row = 0; row < rows; row++) {
        int top = std::max(0, row - level_reach), bottom = std::min(rows, row + level_reach + 1);
        for (int column = 0; column < columns; column++) {
            int left = std::max(0, column - level_reach), right = std::min(columns, column + level_reach + 1);
            double total = sums[(size_t)bottom * (columns + 1) + right] - sums[(size_t)top * (columns + 1) + right]
                - sums[(size_t)bottom * (columns + 1) + left] + sums[(size_t)top * (columns + 1) + left];
            float mean = (float)(total / ((bottom - top) * (right - left)));
            float darker = mean - level[(size_t)row * columns + column];
            darkness[(size_t)row * columns + column] = symbol.inverted ? -darker : darker;
        }
    }
    return darkness;
}

// Codewords fill a symbol with modules of either colour in no order, so a module most of whose
// neighbours (5 x 5) read as it does lies in something printed over the symbol (a logo, a smear)
// more likely than in the symbol: its certainty falls to nothing as 12 of its 24 neighbours alike
// (what codewords give, on average) become 20.
void discount_uniform(const std::vector<bool> &dark, int columns, int rows, std::vector<float> &certainty) {
    for (int row = 0; row < rows; row++) {
        for (int column = 0; column < columns; column++) {
            const bool own = dark[(size_t)row * columns + column];
            int alike = 0;
            for (int y = std::max(0, row - 2); y <= std::min(rows - 1, row + 2); y++)
                for (int x = std::max(0, column - 2); x <= std::min(columns - 1, column + 2); x++)
                    alike += dark[(size_t)y * columns + x] == own;
            alike -= 1;
            // Near the symbol's edges fewer neighbours: scaled to 24.
            int neighbours = (std::min(rows - 1, row + 2) - std::max(0, row - 2) + 1)
                * (std::min(columns - 1, column + 2) - std::max(0, column - 2) + 1) - 1;
            float share = (float)alike * 24 / neighbours;
            certainty[(size_t)row * columns + column] *= std::clamp((20 - share) / 8, 0.0f, 1.0f);
        }
    }
}

// Decodes one block: its least certain codewords erased, none first, then one more at a time,
// until it decodes with `spare_checks` unused.
bool decode_block(const GaloisField &field, std::vector<int> &block, const std::vector<float> &certainty, int check) {
    std::vector<int> order(block.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return certainty[a] < certainty[b] || (certainty[a] == certainty[b] && a < b); });
    for (int erased = 0; erased + spare_checks <= check; erased++) {
        std::vector<int> erasures(order.begin(), order.begin() + erased);
        std::vector<int> attempt = block;
        if (reed_solomon_decode(field, attempt, check, erasures, spare_checks) >= 0) {
            block = attempt;
            return true;
        }
    }
    return false;
}

// The codewords of one reading of the modules, corrected block by block; false when a block
// does not decode. `dark` says what a module was read as, `certainty` how sure that is.
bool corrected_codewords(const SymbolLayout &layout, const GaloisField &field, const std::vector<bool> &dark,
                         const std::vector<float> &certainty, std::vector<int> &codewords) {
    // Codewords as read, and each one's certainty: its least certain bit's.
    codewords.assign(layout.codewords, 0);
    std::vector<float> sure(layout.codewords, INFINITY);
    for (size_t module = 0; module < layout.bits.size(); module++) {
        int bit = layout.bits[module];
        if (bit < 0) continue;
        bool inverted = !layout.inverted.empty() && layout.inverted[module];
        if (dark[module] != inverted) codewords[bit / 8] |= 0x80 >> (bit % 8);
        sure[bit / 8] = std::min(sure[bit / 8], certainty[module]);
    }
    // Each block decoded alone, then its codewords put back in their places.
    for (const std::vector<int> &block : layout.blocks) {
        std::vector<int> words(block.size());
        std::vector<float> block_sure(block.size());
        for (size_t position = 0; position < block.size(); position++)
            words[position] = codewords[block[position]], block_sure[position] = sure[block[position]];
        if (!decode_block(field, words, block_sure, layout.check)) return false;
        for (size_t position = 0; position < block.size(); position++) codewords[block[position]] = words[position];
    }
    return true;
}

// The symbol of `layout` restored from the gray levels round the modules zxing-cpp sampled, drawn
// into `picture`; false when no reading of them decodes.
bool restore(const unsigned char *gray, int width, int height, int stride, const FoundSymbol &symbol,
             const SymbolLayout &layout, const GaloisField &field, int quiet, std::vector<unsigned char> &picture,
             int &picture_width, int &picture_height) {
    if (layout.rows != symbol.rows || layout.columns != symbol.columns) return false;
    Rectified grid;
    if (!plan_rectified(symbol.corners, 0, INT_MAX, grid)) return false;
    const std::vector<float> darkness = module_darkness(gray, width, height, stride, symbol, grid);
    // Two readings: zxing-cpp's guesses, sure as far as the gray levels agree with them; then the
    // gray levels' own (zxing-cpp's threshold and sampling can miss what they see).
    const size_t count = darkness.size();
    std::vector<bool> dark(count);
    std::vector<float> certainty(count);
    std::vector<int> codewords;
    bool restored = false;
    for (int reading = 0; reading < 2 && !restored; reading++) {
        for (size_t module = 0; module < count; module++) {
            bool guessed = symbol.modules[(module / symbol.columns) * symbol.stride + module % symbol.columns] == 0;
            bool seen = darkness[module] > 0;
            dark[module] = reading == 0 ? guessed : seen;
            certainty[module] = reading == 1 || guessed == seen ? std::fabs(darkness[module]) : 0;
        }
        discount_uniform(dark, symbol.columns, symbol.rows, certainty);
        restored = corrected_codewords(layout, field, dark, certainty, codewords);
    }
    if (!restored) return false;
    // The symbol drawn again, black on white with its quiet zone.
    picture_width = (symbol.columns + 2 * quiet) * restored_module;
    picture_height = (symbol.rows + 2 * quiet) * restored_module;
    picture.assign((size_t)picture_width * picture_height, 255);
    for (int row = 0; row < symbol.rows; row++) {
        for (int column = 0; column < symbol.columns; column++) {
            const size_t module = (size_t)row * symbol.columns + column;
            int bit = layout.bits[module];
            bool inverted = !layout.inverted.empty() && layout.inverted[module];
            bool dark = bit == SymbolLayout::dark || (bit >= 0 && ((codewords[bit / 8] & (0x80 >> (bit % 8))) != 0) != inverted);
            if (!dark) continue;
            for (int y = 0; y < restored_module; y++) {
                unsigned char *line = &picture[(size_t)((row + quiet) * restored_module + y) * picture_width];
                std::fill_n(line + (column + quiet) * restored_module, restored_module, 0);
            }
        }
    }
    return true;
}

} // namespace

bool restore_data_matrix(const unsigned char *gray, int width, int height, int stride, const FoundSymbol &symbol,
                         std::vector<unsigned char> &picture, int &picture_width, int &picture_height) {
    SymbolLayout layout;
    return symbol.modules && data_matrix_layout(symbol.rows, symbol.columns, layout)
        && restore(gray, width, height, stride, symbol, layout, GaloisField::data_matrix(), 2, picture, picture_width, picture_height);
}

bool restore_qr(const unsigned char *gray, int width, int height, int stride, const FoundSymbol &symbol,
                std::vector<unsigned char> &picture, int &picture_width, int &picture_height) {
    SymbolLayout layout;
    return symbol.modules && symbol.rows == symbol.columns && qr_layout(symbol.modules, symbol.stride, symbol.rows, layout)
        && restore(gray, width, height, stride, symbol, layout, GaloisField::qr(), 4, picture, picture_width, picture_height);
}

} // namespace lookout
