// Where a matrix symbol keeps each bit of each codeword, and how its codewords make Reed-Solomon
// blocks, so that a symbol zxing-cpp found but could not decode can be decoded again with erasures
// (SoftMatrix.hpp): DataMatrix (ISO/IEC 16022, table 7 and annex F) and QR (ISO/IEC 18004, its
// function patterns, format and version information, data masks and table 9). Internal to CZXing.
#ifndef LOOKOUT_CZXING_SYMBOL_LAYOUT_HPP
#define LOOKOUT_CZXING_SYMBOL_LAYOUT_HPP

#include <vector>

namespace lookout {

struct SymbolLayout {
    static constexpr int dark = -2, light = -1;
    int columns = 0, rows = 0;
    // Per module, row by row: codeword x 8 + bit (0 the most significant), or `dark` or `light`
    // where the symbol is fixed (finders, timing, format, a corner no codeword fills).
    std::vector<int> bits;
    // Per module: its bit is stored inverted (QR's data mask); empty when none is.
    std::vector<bool> inverted;
    // Per Reed-Solomon block, its codewords (indices), data first, then `check` check codewords.
    std::vector<std::vector<int>> blocks;
    int codewords = 0, check = 0;
};

// A DataMatrix (ECC 200) of `rows` x `columns` modules; false for no such size, and for 144 x 144,
// whose check codewords encoders interleave two ways.
bool data_matrix_layout(int rows, int columns, SymbolLayout &layout);

// A QR code (model 2) of `dimension` modules a side, its format information read from its
// modules as sampled (0 dark, row by row with `stride`): false for no such size, or format
// information that is no valid code within 3 bits, in both its copies.
bool qr_layout(const unsigned char *modules, int stride, int dimension, SymbolLayout &layout);

} // namespace lookout

#endif
