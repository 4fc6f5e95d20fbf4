// DataMatrix and QR symbols zxing-cpp found but could not decode, decoded again with erasures:
// zxing-cpp takes every module it sampled for what its threshold made of it, so a smear, a stain,
// a logo or glare across part of a symbol gives guesses that cost Reed-Solomon two check codewords
// each. Here each module's gray level at its centre says how sure that guess is (how far from the
// level round it); the least sure codewords are erased, one more at a time, until every block
// decodes with check codewords to spare. Internal to CZXing.
#ifndef LOOKOUT_CZXING_SOFT_MATRIX_HPP
#define LOOKOUT_CZXING_SOFT_MATRIX_HPP

#include "Rectify.hpp"

#include <vector>

namespace lookout {

// The symbol zxing-cpp found: its modules as it sampled them (0 dark, row by row with `stride`),
// `columns` x `rows`, and its outer corners in the image (top-left, top-right, bottom-right,
// bottom-left as it reads, the corners of its modules' grid).
struct FoundSymbol {
    const unsigned char *modules = nullptr;
    int stride = 0, columns = 0, rows = 0;
    Quad corners;
    bool inverted = false; // light modules on dark ground: its gray levels read the other way
};

// Pixels a module of a restored symbol's picture.
constexpr int restored_module = 4;

// On success, the symbol as its corrected codewords make it, drawn black on white with its quiet
// zone into `picture` (tightly packed, `picture_width` x `picture_height`) for zxing-cpp to read.
// False when the size is not one of the format's (for DataMatrix, nor 144 x 144: encoders
// interleave its check codewords two ways; for QR, model 2 only), a QR's format information is
// not read, the corners are not a quad to sample, or some block does not decode.
bool restore_data_matrix(const unsigned char *gray, int width, int height, int stride, const FoundSymbol &symbol,
                         std::vector<unsigned char> &picture, int &picture_width, int &picture_height);
bool restore_qr(const unsigned char *gray, int width, int height, int stride, const FoundSymbol &symbol,
                std::vector<unsigned char> &picture, int &picture_width, int &picture_height);

} // namespace lookout

#endif
