// Errors-and-erasures Reed-Solomon decoding (see ReedSolomon.hpp): Berlekamp-Massey started from
// the erasures' locator, Chien's search for the roots, Forney's formula for the values.
#include "ReedSolomon.hpp"

#include <algorithm>

namespace lookout {

GaloisField::GaloisField(int polynomial, int first_root) : first_root_(first_root) {
    int m = 0;
    while ((polynomial >> (m + 1)) != 0) m++;
    size_ = 1 << m;
    exp_.assign(2 * size_, 0);
    log_.assign(size_, 0);
    int x = 1;
    for (int i = 0; i < size_ - 1; i++) {
        exp_[i] = x;
        log_[x] = i;
        x <<= 1;
        if (x & size_) x ^= polynomial;
    }
    for (int i = size_ - 1; i < 2 * size_; i++) exp_[i] = exp_[i - (size_ - 1)];
}

const GaloisField &GaloisField::data_matrix() {
    static const GaloisField field(0x12D, 1);
    return field;
}

const GaloisField &GaloisField::qr() {
    static const GaloisField field(0x11D, 0);
    return field;
}

namespace {

// A polynomial's value at x; coefficients lowest power first.
int evaluate(const GaloisField &field, const std::vector<int> &poly, int x) {
    int value = 0;
    for (size_t i = poly.size(); i-- > 0;) value = field.multiply(value, x) ^ poly[i];
    return value;
}

} // namespace

int reed_solomon_decode(const GaloisField &field, std::vector<int> &codeword, int check_count,
                        const std::vector<int> &erasures, int spare) {
    const int n = (int)codeword.size(), f = (int)erasures.size();
    if (check_count <= 0 || check_count >= n || n >= field.size() || f + spare > check_count) return -1;
    // Position i holds the coefficient of x^(n-1-i); its locator is alpha^(n-1-i).
    std::vector<int> syndromes(check_count);
    bool clean = true;
    for (int j = 0; j < check_count; j++) {
        int root = field.exp(field.first_root() + j), value = 0;
        for (int symbol : codeword) value = field.multiply(value, root) ^ symbol;
        syndromes[j] = value;
        clean = clean && value == 0;
    }
    if (clean) return 0;
    // The erasures' locator, prod (1 - X_k x), lowest power first.
    std::vector<int> locator{1};
    for (int index : erasures) {
        if (index < 0 || index >= n) return -1;
        int x = field.exp(n - 1 - index);
        std::vector<int> next(locator.size() + 1, 0);
        for (size_t i = 0; i < locator.size(); i++) {
            next[i] ^= locator[i];
            next[i + 1] ^= field.multiply(locator[i], x);
        }
        locator = next;
    }
    // Berlekamp-Massey over the syndromes the erasures leave.
    std::vector<int> previous = locator;
    int length = f;
    for (int r = f; r < check_count; r++) {
        int discrepancy = 0;
        for (int i = 0; i < (int)locator.size() && i <= r; i++)
            discrepancy ^= field.multiply(locator[i], syndromes[r - i]);
        previous.insert(previous.begin(), 0); // x B(x)
        if (discrepancy == 0) continue;
        std::vector<int> next(std::max(locator.size(), previous.size()), 0);
        for (size_t i = 0; i < locator.size(); i++) next[i] = locator[i];
        for (size_t i = 0; i < previous.size(); i++) next[i] ^= field.multiply(discrepancy, previous[i]);
        if (2 * length <= r + f) {
            int inverse = field.inverse(discrepancy);
            previous.assign(locator.size(), 0);
            for (size_t i = 0; i < locator.size(); i++) previous[i] = field.multiply(locator[i], inverse);
            length = r + 1 + f - length;
        }
        locator = next;
    }
    while (locator.size() > 1 && locator.back() == 0) locator.pop_back();
    const int degree = (int)locator.size() - 1, errors = degree - f;
    if (degree != length || errors < 0 || 2 * errors + f + spare > check_count) return -1;
    // Chien's search: every root must be a position of the codeword.
    std::vector<int> positions;
    for (int i = 0; i < n; i++)
        if (evaluate(field, locator, field.inverse(field.exp(n - 1 - i))) == 0) positions.push_back(i);
    if ((int)positions.size() != degree) return -1;
    // Forney: the evaluator is S(x) L(x) mod x^check_count; the derivative keeps odd terms.
    std::vector<int> evaluator(check_count, 0);
    for (int i = 0; i < check_count; i++)
        for (int j = 0; j <= i && j < (int)locator.size(); j++) evaluator[i] ^= field.multiply(syndromes[i - j], locator[j]);
    std::vector<int> derivative(locator.size() > 1 ? locator.size() - 1 : 1, 0);
    for (size_t i = 1; i < locator.size(); i += 2) derivative[i - 1] = locator[i];
    std::vector<int> corrected = codeword;
    for (int i : positions) {
        int x = field.exp(n - 1 - i), x_inverse = field.inverse(x);
        int denominator = evaluate(field, derivative, x_inverse);
        if (denominator == 0) return -1;
        int value = field.multiply(evaluate(field, evaluator, x_inverse), field.inverse(denominator));
        // X^(1 - first root) scales the value when the generator's roots start elsewhere than 1.
        value = field.multiply(value, field.exp((1 - field.first_root()) * field.log(x)));
        corrected[i] ^= value;
    }
    // The corrected codeword must be one: a wrong locator can pass every test above.
    for (int j = 0; j < check_count; j++) {
        int root = field.exp(field.first_root() + j), value = 0;
        for (int symbol : corrected) value = field.multiply(value, root) ^ symbol;
        if (value != 0) return -1;
    }
    codeword = corrected;
    return errors;
}

} // namespace lookout
