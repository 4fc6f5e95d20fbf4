// Wiener deconvolution of a luma plane by a Gaussian blur, for bars a camera out of focus smeared
// into each other: an unsharp mask restores edges blurred by about a module, a deconvolution also
// those blurred by most of a module, where no threshold tells the bars apart any more.
#include "COpenCV.h"
#include "OpenCVCall.hpp"

#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>

extern "C" int lk_deconvolve(const unsigned char *gray, int width, int height, int stride, double sigma, double noise,
                             unsigned char *out) {
    OpenCVCall call;
    if (width <= 0 || height <= 0 || sigma <= 0 || noise <= 0) return -1;
    try {
        cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
        // Mirrored margins of three sigmas, to a size the DFT is fast at: without them the
        // picture's edges ring across it.
        int margin = (int)std::ceil(3 * sigma);
        int paddedWidth = cv::getOptimalDFTSize(width + 2 * margin), paddedHeight = cv::getOptimalDFTSize(height + 2 * margin);
        thread_local cv::Mat padded, spectrum, restored;
        cv::Mat bordered;
        cv::copyMakeBorder(source, bordered, margin, paddedHeight - height - margin, margin, paddedWidth - width - margin,
                           cv::BORDER_REFLECT);
        bordered.convertTo(padded, CV_32F);
        cv::dft(padded, spectrum, cv::DFT_COMPLEX_OUTPUT);
        // The Gaussian's transfer is real and even: G(f) = exp(-2 pi^2 sigma^2 |f|^2); the filter
        // G / (G^2 + noise) applies to both parts of every frequency.
        double factor = -2 * M_PI * M_PI * sigma * sigma;
        for (int y = 0; y < paddedHeight; y++) {
            double fy = (y <= paddedHeight / 2 ? y : y - paddedHeight) / (double)paddedHeight;
            cv::Vec2f *row = spectrum.ptr<cv::Vec2f>(y);
            for (int x = 0; x < paddedWidth; x++) {
                double fx = (x <= paddedWidth / 2 ? x : x - paddedWidth) / (double)paddedWidth;
                double g = std::exp(factor * (fx * fx + fy * fy));
                row[x] *= (float)(g / (g * g + noise));
            }
        }
        cv::idft(spectrum, restored, cv::DFT_SCALE | cv::DFT_REAL_OUTPUT);
        cv::Mat target(height, width, CV_8UC1, out, (size_t)width);
        restored(cv::Rect(margin, margin, width, height)).convertTo(target, CV_8U);
        return target.data == out ? 0 : -1;
    } catch (const std::exception &) {
        return -1;
    }
}
