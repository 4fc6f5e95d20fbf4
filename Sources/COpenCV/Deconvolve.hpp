// The frame of a deconvolution in the frequency domain, shared by the Gaussian (Deconvolve.cpp)
// and the shake (ShakeDeconvolve.cpp).
#pragma once

#include <functional>

#include <opencv2/core.hpp>

namespace lookout {

// Writes `gray` (8-bit, `stride` bytes a row) deconvolved into `out` (tightly packed): mirrored
// margins of `margin` pixels (without them the picture's edges ring across it), to a size the
// DFT is fast at; `filter` changes the padded picture's spectrum (CV_32FC2) in place; the
// picture comes back, its values clipped to 0 to 255. Throws what OpenCV throws.
void deconvolved(const unsigned char *gray, int width, int height, int stride, int margin,
                 const std::function<void(cv::Mat &spectrum)> &filter, unsigned char *out);

}  // namespace lookout
