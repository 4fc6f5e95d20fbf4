// DataMatrix's sizes and module placement (see SymbolLayout.hpp).
#include "SymbolLayout.hpp"

#include <cstddef>

namespace lookout {

namespace {

struct Size {
    int rows, columns, region_rows, region_columns, data, check, blocks;
};

// ISO/IEC 16022 table 7: the 24 square and 6 rectangular ECC 200 sizes.
const Size sizes[] = {
    {10, 10, 8, 8, 3, 5, 1},          {12, 12, 10, 10, 5, 7, 1},       {14, 14, 12, 12, 8, 10, 1},
    {16, 16, 14, 14, 12, 12, 1},      {18, 18, 16, 16, 18, 14, 1},     {20, 20, 18, 18, 22, 18, 1},
    {22, 22, 20, 20, 30, 20, 1},      {24, 24, 22, 22, 36, 24, 1},     {26, 26, 24, 24, 44, 28, 1},
    {32, 32, 14, 14, 62, 36, 1},      {36, 36, 16, 16, 86, 42, 1},     {40, 40, 18, 18, 114, 48, 1},
    {44, 44, 20, 20, 144, 56, 1},     {48, 48, 22, 22, 174, 68, 1},    {52, 52, 24, 24, 204, 84, 2},
    {64, 64, 14, 14, 280, 112, 2},    {72, 72, 16, 16, 368, 144, 4},   {80, 80, 18, 18, 456, 192, 4},
    {88, 88, 20, 20, 576, 224, 4},    {96, 96, 22, 22, 696, 272, 4},   {104, 104, 24, 24, 816, 336, 6},
    {120, 120, 18, 18, 1050, 408, 6}, {132, 132, 20, 20, 1304, 496, 8}, {144, 144, 22, 22, 1558, 620, 10},
    {8, 18, 6, 16, 5, 7, 1},          {8, 32, 6, 14, 10, 11, 1},       {12, 26, 10, 24, 16, 14, 1},
    {12, 36, 10, 16, 22, 18, 1},      {16, 36, 14, 16, 32, 24, 1},     {16, 48, 14, 22, 49, 28, 1},
};

// Annex F's placement into the mapping matrix (the data regions side by side, without their
// finder and timing patterns): each cell gets codeword x 8 + bit.
class Placement {
public:
    Placement(int rows, int columns) : rows_(rows), columns_(columns), cells_((size_t)rows * columns, -1) {}

    std::vector<int> run() {
        int codeword = 0, row = 4, column = 0;
        do {
            if (row == rows_ && column == 0) corner(codeword++, corner1);
            if (row == rows_ - 2 && column == 0 && columns_ % 4) corner(codeword++, corner2);
            if (row == rows_ - 2 && column == 0 && columns_ % 8 == 4) corner(codeword++, corner3);
            if (row == rows_ + 4 && column == 2 && columns_ % 8 == 0) corner(codeword++, corner4);
            do { // up and to the right
                if (row < rows_ && column >= 0 && cell(row, column) < 0) utah(row, column, codeword++);
                row -= 2, column += 2;
            } while (row >= 0 && column < columns_);
            row += 1, column += 3;
            do { // down and to the left
                if (row >= 0 && column < columns_ && cell(row, column) < 0) utah(row, column, codeword++);
                row += 2, column -= 2;
            } while (row < rows_ && column >= 0);
            row += 3, column += 1;
        } while (row < rows_ || column < columns_);
        return cells_;
    }

private:
    // The four corner shapes: (row, column) of bits 0 to 7, negative counted from the far side.
    static constexpr int corner1[8][2] = {{-1, 0}, {-1, 1}, {-1, 2}, {0, -2}, {0, -1}, {1, -1}, {2, -1}, {3, -1}};
    static constexpr int corner2[8][2] = {{-3, 0}, {-2, 0}, {-1, 0}, {0, -4}, {0, -3}, {0, -2}, {0, -1}, {1, -1}};
    static constexpr int corner3[8][2] = {{-3, 0}, {-2, 0}, {-1, 0}, {0, -2}, {0, -1}, {1, -1}, {2, -1}, {3, -1}};
    static constexpr int corner4[8][2] = {{-1, 0}, {-1, -1}, {0, -3}, {0, -2}, {0, -1}, {1, -3}, {1, -2}, {1, -1}};

    int &cell(int row, int column) { return cells_[(size_t)row * columns_ + column]; }

    // A bit placed at (row, column), wrapped round the matrix's edges as annex F says.
    void module(int row, int column, int codeword, int bit) {
        if (row < 0) row += rows_, column += 4 - ((rows_ + 4) % 8);
        if (column < 0) column += columns_, row += 4 - ((columns_ + 4) % 8);
        if (row >= 0 && row < rows_ && column >= 0 && column < columns_) cell(row, column) = codeword * 8 + bit;
    }

    // The usual L-shaped codeword, its last bit at (row, column).
    void utah(int row, int column, int codeword) {
        const int shape[8][2] = {{-2, -2}, {-2, -1}, {-1, -2}, {-1, -1}, {-1, 0}, {0, -2}, {0, -1}, {0, 0}};
        for (int bit = 0; bit < 8; bit++) module(row + shape[bit][0], column + shape[bit][1], codeword, bit);
    }

    void corner(int codeword, const int (&shape)[8][2]) {
        for (int bit = 0; bit < 8; bit++) {
            int row = shape[bit][0] < 0 ? rows_ + shape[bit][0] : shape[bit][0];
            int column = shape[bit][1] < 0 ? columns_ + shape[bit][1] : shape[bit][1];
            cell(row, column) = codeword * 8 + bit;
        }
    }

    int rows_, columns_;
    std::vector<int> cells_;
};

} // namespace

bool data_matrix_layout(int symbol_rows, int symbol_columns, SymbolLayout &layout) {
    const Size *size = nullptr;
    for (const Size &candidate : sizes)
        if (candidate.rows == symbol_rows && candidate.columns == symbol_columns) size = &candidate;
    if (!size || size->rows == 144) return false;
    const int rows = size->rows, columns = size->columns, region_rows = size->region_rows, region_columns = size->region_columns;
    const int down = rows / (region_rows + 2), across = columns / (region_columns + 2);
    const int mapping_rows = down * region_rows, mapping_columns = across * region_columns;
    std::vector<int> mapping = Placement(mapping_rows, mapping_columns).run();
    layout = SymbolLayout();
    layout.rows = rows, layout.columns = columns;
    layout.bits.assign((size_t)rows * columns, SymbolLayout::light);
    for (int row = 0; row < rows; row++) {
        int inner_row = row % (region_rows + 2) - 1; // -1: the region's top timing row
        for (int column = 0; column < columns; column++) {
            int inner_column = column % (region_columns + 2) - 1; // -1: its solid left side
            int &bit = layout.bits[(size_t)row * columns + column];
            // Each region's finder (solid left and bottom) and timing (top and right, alternating).
            if (inner_column < 0 || inner_row == region_rows) {
                bit = SymbolLayout::dark;
            } else if (inner_row < 0) {
                bit = inner_column % 2 ? SymbolLayout::dark : SymbolLayout::light;
            } else if (inner_column == region_columns) {
                bit = inner_row % 2 ? SymbolLayout::light : SymbolLayout::dark;
            } else {
                int mapped_row = row / (region_rows + 2) * region_rows + inner_row;
                int mapped_column = column / (region_columns + 2) * region_columns + inner_column;
                bit = mapping[(size_t)mapped_row * mapping_columns + mapped_column];
                // The corner annex F leaves unfilled: its diagonal dark.
                if (bit < 0) bit = mapped_row - mapped_column == mapping_rows - mapping_columns
                    && mapped_row >= mapping_rows - 2 ? SymbolLayout::dark : SymbolLayout::light;
            }
        }
    }
    // Codeword k of the data goes to block k mod blocks, and so does check codeword k.
    layout.codewords = size->data + size->check;
    layout.check = size->check / size->blocks;
    layout.blocks.assign(size->blocks, {});
    for (int k = 0; k < size->data; k++) layout.blocks[k % size->blocks].push_back(k);
    for (int k = 0; k < size->check; k++) layout.blocks[k % size->blocks].push_back(size->data + k);
    return true;
}

} // namespace lookout
