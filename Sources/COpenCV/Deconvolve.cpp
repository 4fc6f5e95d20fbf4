// Wiener deconvolution of a luma plane by a Gaussian blur, for bars a camera out of focus smeared
// into each other: an unsharp mask restores edges blurred by about a module, a deconvolution also
// those blurred by most of a module, where no threshold tells the bars apart any more.
// The frame (mirrored margins, the DFT and back) is `lookout::deconvolved`, which the shake
// (ShakeDeconvolve.cpp) shares.
#include "COpenCV.h"
#include "Deconvolve.hpp"
#include "OpenCVCall.hpp"

#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>

namespace lookout {

void deconvolved(const unsigned char *gray, int width, int height, int stride, int margin,
                 const std::function<void(cv::Mat &spectrum)> &filter, unsigned char *out) {
    cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
    int paddedWidth = cv::getOptimalDFTSize(width + 2 * margin), paddedHeight = cv::getOptimalDFTSize(height + 2 * margin);
    thread_local cv::Mat padded, spectrum, restored;
    cv::Mat bordered;
    cv::copyMakeBorder(source, bordered, margin, paddedHeight - height - margin, margin, paddedWidth - width - margin,
                       cv::BORDER_REFLECT);
    bordered.convertTo(padded, CV_32F);
    cv::dft(padded, spectrum, cv::DFT_COMPLEX_OUTPUT);
    filter(spectrum);
    cv::idft(spectrum, restored, cv::DFT_SCALE | cv::DFT_REAL_OUTPUT);
    cv::Mat target(height, width, CV_8UC1, out, (size_t)width);
    restored(cv::Rect(margin, margin, width, height)).convertTo(target, CV_8U);
    CV_Assert(target.data == out);  // written in place, not into a buffer of OpenCV's
}

}  // namespace lookout

extern "C" int lk_deconvolve(const unsigned char *gray, int width, int height, int stride, double sigma, double noise,
                             unsigned char *out) {
    OpenCVCall call;
    if (!gray || !out || width <= 0 || height <= 0 || stride < width || !(sigma > 0) || !(noise > 0)) return -1;
    try {
        // The Gaussian's transfer is real and even: G(f) = exp(-2 pi^2 sigma^2 |f|^2); the filter
        // G / (G^2 + noise) applies to both parts of every frequency. Margins of three sigmas.
        double factor = -2 * M_PI * M_PI * sigma * sigma;
        lookout::deconvolved(gray, width, height, stride, (int)std::ceil(3 * sigma), [&](cv::Mat &spectrum) {
            int paddedWidth = spectrum.cols, paddedHeight = spectrum.rows;
            for (int y = 0; y < paddedHeight; y++) {
                double fy = (y <= paddedHeight / 2 ? y : y - paddedHeight) / (double)paddedHeight;
                cv::Vec2f *row = spectrum.ptr<cv::Vec2f>(y);
                for (int x = 0; x < paddedWidth; x++) {
                    double fx = (x <= paddedWidth / 2 ? x : x - paddedWidth) / (double)paddedWidth;
                    double g = std::exp(factor * (fx * fx + fy * fy));
                    row[x] *= (float)(g / (g * g + noise));
                }
            }
        }, out);
        return 0;
    } catch (const std::exception &) {
        return -1;
    }
}
