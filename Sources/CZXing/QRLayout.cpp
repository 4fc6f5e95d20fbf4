// QR's function patterns, format and version information, data masks and blocks (see
// SymbolLayout.hpp).
#include "SymbolLayout.hpp"

#include <cstddef>

namespace lookout {

namespace {

// ISO/IEC 18004 table 9: per version, for error correction L, M, Q and H, the check codewords a
// block and the blocks.
const int qr_blocks[40][4][2] = {
    {{7, 1}, {10, 1}, {13, 1}, {17, 1}}, {{10, 1}, {16, 1}, {22, 1}, {28, 1}}, {{15, 1}, {26, 1}, {18, 2}, {22, 2}}, {{20, 1}, {18, 2}, {26, 2}, {16, 4}},
    {{26, 1}, {24, 2}, {18, 4}, {22, 4}}, {{18, 2}, {16, 4}, {24, 4}, {28, 4}}, {{20, 2}, {18, 4}, {18, 6}, {26, 5}}, {{24, 2}, {22, 4}, {22, 6}, {26, 6}},
    {{30, 2}, {22, 5}, {20, 8}, {24, 8}}, {{18, 4}, {26, 5}, {24, 8}, {28, 8}}, {{20, 4}, {30, 5}, {28, 8}, {24, 11}}, {{24, 4}, {22, 8}, {26, 10}, {28, 11}},
    {{26, 4}, {22, 9}, {24, 12}, {22, 16}}, {{30, 4}, {24, 9}, {20, 16}, {24, 16}}, {{22, 6}, {24, 10}, {30, 12}, {24, 18}}, {{24, 6}, {28, 10}, {24, 17}, {30, 16}},
    {{28, 6}, {28, 11}, {28, 16}, {28, 19}}, {{30, 6}, {26, 13}, {28, 18}, {28, 21}}, {{28, 7}, {26, 14}, {26, 21}, {26, 25}}, {{28, 8}, {26, 16}, {30, 20}, {28, 25}},
    {{28, 8}, {26, 17}, {28, 23}, {30, 25}}, {{28, 9}, {28, 17}, {30, 23}, {24, 34}}, {{30, 9}, {28, 18}, {30, 25}, {30, 30}}, {{30, 10}, {28, 20}, {30, 27}, {30, 32}},
    {{26, 12}, {28, 21}, {30, 29}, {30, 35}}, {{28, 12}, {28, 23}, {28, 34}, {30, 37}}, {{30, 12}, {28, 25}, {30, 34}, {30, 40}}, {{30, 13}, {28, 26}, {30, 35}, {30, 42}},
    {{30, 14}, {28, 28}, {30, 38}, {30, 45}}, {{30, 15}, {28, 29}, {30, 40}, {30, 48}}, {{30, 16}, {28, 31}, {30, 43}, {30, 51}}, {{30, 17}, {28, 33}, {30, 45}, {30, 54}},
    {{30, 18}, {28, 35}, {30, 48}, {30, 57}}, {{30, 19}, {28, 37}, {30, 51}, {30, 60}}, {{30, 19}, {28, 38}, {30, 53}, {30, 63}}, {{30, 20}, {28, 40}, {30, 56}, {30, 66}},
    {{30, 21}, {28, 43}, {30, 59}, {30, 70}}, {{30, 22}, {28, 45}, {30, 62}, {30, 74}}, {{30, 24}, {28, 47}, {30, 65}, {30, 77}}, {{30, 25}, {28, 49}, {30, 68}, {30, 81}},
};

// The 15 bits of format information for error correction bits `level` (L 01, M 00, Q 11, H 10)
// and `mask`: BCH(15, 5), then masked.
int format_bits(int level, int mask) {
    int data = level << 3 | mask, remainder = data;
    for (int i = 0; i < 10; i++) remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537);
    return (data << 10 | (remainder & 0x3ff)) ^ 0x5412;
}

// The 18 bits of version information: BCH(18, 6).
int version_bits(int version) {
    int remainder = version;
    for (int i = 0; i < 12; i++) remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1f25);
    return version << 12 | (remainder & 0xfff);
}

// Whether module (x, y) is dark under data mask `mask` (x the column, y the row).
bool mask_bit(int mask, int x, int y) {
    switch (mask) {
    case 0: return (y + x) % 2 == 0;
    case 1: return y % 2 == 0;
    case 2: return x % 3 == 0;
    case 3: return (y + x) % 3 == 0;
    case 4: return (y / 2 + x / 3) % 2 == 0;
    case 5: return (y * x) % 6 == 0;
    case 6: return (y * x) % 6 < 3;
    default: return (y + x + (y * x) % 3) % 2 == 0;
    }
}

// Where bit `i` (0 the least significant) of the format information's first copy (round the
// top-left finder) and its second (under the top-right one and beside the bottom-left one) lie.
struct FormatPlaces {
    int first_x, first_y, second_x, second_y;
};
FormatPlaces format_places(int i, int size) {
    FormatPlaces at;
    at.first_x = i < 8 ? 8 : i == 8 ? 7 : 14 - i;
    at.first_y = i < 6 ? i : i < 8 ? i + 1 : 8;
    at.second_x = i < 8 ? size - 1 - i : 8;
    at.second_y = i < 8 ? 8 : size - 15 + i;
    return at;
}

// A module's ring round a pattern's centre (the larger of its distances across and down).
int ring(int dx, int dy) {
    dx = dx < 0 ? -dx : dx, dy = dy < 0 ? -dy : dy;
    return dx > dy ? dx : dy;
}

int bit_count(int value) {
    int count = 0;
    for (; value; value &= value - 1) count++;
    return count;
}

class QRBuilder {
public:
    QRBuilder(int dimension, SymbolLayout &layout) : size_(dimension), layout_(layout) {
        layout_.rows = layout_.columns = dimension;
        layout_.bits.assign((size_t)dimension * dimension, unset);
        layout_.inverted.assign((size_t)dimension * dimension, false);
    }

    void function_patterns(int version) {
        for (int i = 0; i < size_; i++) set(6, i, i % 2 == 0), set(i, 6, i % 2 == 0); // timing
        for (int cx : {3, size_ - 4})                                                    // finders
            for (int cy : {3, size_ - 4})
                if (cx == 3 || cy == 3)
                    for (int dy = -4; dy <= 4; dy++)
                        for (int dx = -4; dx <= 4; dx++) {
                            if (cx + dx >= 0 && cx + dx < size_ && cy + dy >= 0 && cy + dy < size_)
                                set(cx + dx, cy + dy, ring(dx, dy) != 2 && ring(dx, dy) != 4);
                        }
        if (version >= 2) { // alignment patterns, but where they would overlap a finder
            int count = version / 7 + 2, step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2;
            std::vector<int> centres(count);
            centres[0] = 6;
            for (int i = count - 1, position = size_ - 7; i >= 1; i--, position -= step) centres[i] = position;
            for (int i = 0; i < count; i++)
                for (int j = 0; j < count; j++) {
                    if ((i == 0 && j == 0) || (i == 0 && j == count - 1) || (i == count - 1 && j == 0)) continue;
                    for (int dy = -2; dy <= 2; dy++)
                        for (int dx = -2; dx <= 2; dx++) {
                            set(centres[i] + dx, centres[j] + dy, ring(dx, dy) != 1);
                        }
                }
        }
        if (version >= 7) {
            int bits = version_bits(version);
            for (int i = 0; i < 18; i++) {
                bool on = (bits >> i) & 1;
                set(size_ - 11 + i % 3, i / 3, on), set(i / 3, size_ - 11 + i % 3, on);
            }
        }
    }

    // Both copies of the format information, bit 0 the least significant; the dark module.
    void format(int bits) {
        for (int i = 0; i < 15; i++) {
            bool on = (bits >> i) & 1;
            FormatPlaces at = format_places(i, size_);
            set(at.first_x, at.first_y, on), set(at.second_x, at.second_y, on);
        }
        set(8, size_ - 8, true);
    }

    // The data modules in QR's order (pairs of columns from the right, up and down in turn), the
    // first `codewords` x 8 holding codeword bits, the rest remainder bits; all masked.
    void data(int codewords, int mask) {
        int count = 0;
        bool upward = true;
        for (int right = size_ - 1; right > 0; right -= 2) {
            if (right == 6) right--; // the vertical timing pattern's column
            for (int step = 0; step < size_; step++) {
                int y = upward ? size_ - 1 - step : step;
                for (int x : {right, right - 1}) {
                    int &bit = layout_.bits[(size_t)y * size_ + x];
                    if (bit != unset) continue;
                    bool inverted = mask_bit(mask, x, y);
                    layout_.inverted[(size_t)y * size_ + x] = inverted;
                    bit = count < codewords * 8 ? count++ : inverted ? SymbolLayout::dark : SymbolLayout::light;
                }
            }
            upward = !upward;
        }
    }

private:
    static constexpr int unset = -3;
    void set(int x, int y, bool dark) { layout_.bits[(size_t)y * size_ + x] = dark ? SymbolLayout::dark : SymbolLayout::light; }

    int size_;
    SymbolLayout &layout_;
};

} // namespace

bool qr_layout(const unsigned char *modules, int stride, int dimension, SymbolLayout &layout) {
    const int version = (dimension - 17) / 4;
    if (!modules || dimension < 21 || dimension > 177 || (dimension - 17) % 4 != 0) return false;
    auto dark = [&](int x, int y) { return modules[(size_t)y * stride + x] == 0; };
    // The two copies as sampled, most significant bit first.
    int first = 0, second = 0;
    for (int i = 14; i >= 0; i--) {
        FormatPlaces at = format_places(i, dimension);
        first = first << 1 | dark(at.first_x, at.first_y);
        second = second << 1 | dark(at.second_x, at.second_y);
    }
    int best = -1, distance = 4;
    for (int level = 0; level < 4; level++)
        for (int mask = 0; mask < 8; mask++) {
            int bits = format_bits(level, mask);
            int off = bit_count(bits ^ first) < bit_count(bits ^ second) ? bit_count(bits ^ first) : bit_count(bits ^ second);
            if (off < distance) distance = off, best = level << 3 | mask;
        }
    if (best < 0) return false;
    const int level_bits = best >> 3, mask = best & 7;
    const int level = level_bits == 1 ? 0 : level_bits == 0 ? 1 : level_bits == 3 ? 2 : 3; // L, M, Q, H
    layout = SymbolLayout();
    QRBuilder builder(dimension, layout);
    builder.function_patterns(version);
    builder.format(format_bits(level_bits, mask));
    int raw = (16 * version + 128) * version + 64;
    if (version >= 2) {
        int count = version / 7 + 2;
        raw -= 25 * count * count - 10 * count - 55;
        if (version >= 7) raw -= 36;
    }
    layout.codewords = raw / 8;
    builder.data(layout.codewords, mask);
    // Blocks: the short ones first, then those of one more data codeword; data interleaved, then
    // check codewords.
    const int check = qr_blocks[version - 1][level][0], blocks = qr_blocks[version - 1][level][1];
    const int short_data = layout.codewords / blocks - check, long_blocks = layout.codewords % blocks;
    layout.check = check;
    layout.blocks.assign(blocks, {});
    int index = 0;
    for (int i = 0; i <= short_data; i++)
        for (int b = 0; b < blocks; b++)
            if (i < short_data || b >= blocks - long_blocks) layout.blocks[b].push_back(index++);
    for (int i = 0; i < check; i++)
        for (int b = 0; b < blocks; b++) layout.blocks[b].push_back(index++);
    return index == layout.codewords;
}

} // namespace lookout
