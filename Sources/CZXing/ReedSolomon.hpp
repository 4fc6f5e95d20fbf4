// Reed-Solomon decoding with erasures over GF(2^m), for codewords whose unreliable symbols are
// known (SoftMatrix.hpp): zxing-cpp decodes errors only, where a module sampled mid-grey counts as
// a guess. Each erasure costs one check symbol where an unknown error costs two. Internal to CZXing.
#ifndef LOOKOUT_CZXING_REED_SOLOMON_HPP
#define LOOKOUT_CZXING_REED_SOLOMON_HPP

#include <vector>

namespace lookout {

// GF(2^m) by its primitive polynomial (with the x^m term), and the power of the generator's
// first root (DataMatrix and Aztec: 1; QR: 0).
class GaloisField {
public:
    GaloisField(int polynomial, int first_root);
    int size() const { return size_; }
    int first_root() const { return first_root_; }
    int exp(int power) const { return exp_[((power % (size_ - 1)) + (size_ - 1)) % (size_ - 1)]; }
    int log(int value) const { return log_[value]; } // value != 0
    int multiply(int a, int b) const { return a && b ? exp_[log_[a] + log_[b]] : 0; }
    int inverse(int value) const { return exp_[size_ - 1 - log_[value]]; } // value != 0

    // DataMatrix's field (x^8 + x^5 + x^3 + x^2 + 1, first root 1) and QR's (x^8 + x^4 + x^3 +
    // x^2 + 1, first root 0).
    static const GaloisField &data_matrix();
    static const GaloisField &qr();

private:
    int size_, first_root_;
    std::vector<int> exp_, log_; // exp_ twice as long: products need no reduction
};

// Corrects `codeword` (data then `check_count` check symbols, the first the highest power) in
// place, with the symbols at `erasures` (indices) unknown. Succeeds when 2 x errors + erasures
// leaves at least `spare` check symbols unused: each unused one makes a wrong codeword that
// passes about `size` times less likely. Returns the errors found beside the erasures, or -1
// (nothing changed).
int reed_solomon_decode(const GaloisField &field, std::vector<int> &codeword, int check_count,
                        const std::vector<int> &erasures, int spare);

} // namespace lookout

#endif
