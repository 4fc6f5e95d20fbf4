// The blurred EAN-13 model that EAN13Profile.cpp matches a profile of bars against.
#pragma once

#include <vector>

namespace lookout::ean13 {

// Where the symbol lies in a profile and how the camera saw it: the left edge of its first module
// (in samples), a module's width (in samples), the blur (a Gaussian's sigma, in modules), and the
// grey levels: light + slope · x where there is no bar, plus contrast (negative) for a dark module.
struct Hypothesis {
    double x0 = 0, width = 0, sigma = 0;
    double contrast = 0, light = 0, slope = 0;
};

struct Read {
    char digits[14] = {0};  // the 13 digits, or empty
    double cost = 0;        // the squared residual of the best symbol
    double fit = 0;         // |contrast| over the residual's root mean square, after the grey levels are fitted
    double explained = 0;   // the share of the symbol's variance the model explains (1 - residual / variance)
    bool reversed = false;  // read from the profile's end
    Hypothesis at;
};

// The best symbol under `at`, the check digit holding (digits empty when the profile is too
// short). Not `exact`: only a bound from below on its cost (any pattern for each digit), no digits.
Read decode(const std::vector<float> &profile, const Hypothesis &at, bool exact = true);

// The best symbol over positions, module widths and blurs round the extent [lo, hi] of the dark
// samples, both ways round, its grey levels fitted.
Read search(const std::vector<float> &profile, int lo, int hi, double light, double dark);

// The best symbol near `at`, its grey levels fitted: a half of the rows read with the model the
// whole band found (the caller reverses the half as the whole band's read was).
Read refine(const std::vector<float> &profile, const Hypothesis &at);

}  // namespace lookout::ean13
