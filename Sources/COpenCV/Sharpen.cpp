// Unsharp masking of a luma plane, for the second looks at blurred codes: bars and modules a
// camera smeared into each other get their edges back (the image plus twice its difference from
// a Gaussian blur). Used on frames ZBar read nothing in, within the second pass's budget, and on
// every still; also enlarged first, flattened first, or made black and white after (a symbol's
// own place). OpenCV may run these in its threads: see OpenCVCall.hpp.
#include "COpenCV.h"
#include "OpenCVCall.hpp"

#include <algorithm>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace {
void unsharp(const cv::Mat &source, double sigma, cv::Mat &target) {
    thread_local cv::Mat blurred; // kept from call to call on each code queue
    cv::GaussianBlur(source, blurred, cv::Size(0, 0), sigma);
    cv::addWeighted(source, 3.0, blurred, -2.0, 0, target);
}
} // namespace

extern "C" int lk_sharpen(const unsigned char *gray, int width, int height, int stride, double sigma, unsigned char *out) {
    OpenCVCall call;
    try {
        cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
        cv::Mat target(height, width, CV_8UC1, out, (size_t)width);
        unsharp(source, sigma, target);
        return target.data == out ? 0 : -1;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int lk_enlarge_sharpen(const unsigned char *gray, int width, int height, int stride, double sigma,
                                  unsigned char *out) {
    OpenCVCall call;
    try {
        cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
        cv::Mat target(2 * height, 2 * width, CV_8UC1, out, (size_t)(2 * width));
        thread_local cv::Mat enlarged;
        cv::resize(source, enlarged, target.size(), 0, 0, cv::INTER_CUBIC);
        unsharp(enlarged, sigma, target);
        return target.data == out ? 0 : -1;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int lk_enlarge_threshold(const unsigned char *gray, int width, int height, int stride, double sigma, int block,
                                    unsigned char *out) {
    OpenCVCall call;
    if (block < 3 || block % 2 == 0) return -1;
    try {
        cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
        cv::Mat target(2 * height, 2 * width, CV_8UC1, out, (size_t)(2 * width));
        thread_local cv::Mat enlarged, sharpened;
        cv::resize(source, enlarged, target.size(), 0, 0, cv::INTER_CUBIC);
        unsharp(enlarged, sigma, sharpened);
        cv::adaptiveThreshold(sharpened, target, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY, block, 0);
        return target.data == out ? 0 : -1;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int lk_enlarge(const unsigned char *gray, int width, int height, int stride, unsigned char *out) {
    OpenCVCall call;
    try {
        cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
        cv::Mat target(2 * height, 2 * width, CV_8UC1, out, (size_t)(2 * width));
        cv::resize(source, target, target.size(), 0, 0, cv::INTER_CUBIC);
        return target.data == out ? 0 : -1;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int lk_flatten_sharpen(const unsigned char *gray, int width, int height, int stride, unsigned char *out) {
    OpenCVCall call;
    try {
        cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
        cv::Mat target(height, width, CV_8UC1, out, (size_t)width);
        // The light falling on the scene: a Gaussian blur of sigma 6 % of the shorter side,
        // made on a copy shrunk to about 8 pixels a sigma (the same within a level, far cheaper).
        double sigma = std::max(4.0, 0.06 * std::min(width, height));
        double shrink = std::max(1.0, sigma / 8);
        thread_local cv::Mat small, light, ratio;
        cv::resize(source, small, cv::Size(std::max(1, (int)(width / shrink)), std::max(1, (int)(height / shrink))), 0, 0,
                   cv::INTER_AREA);
        cv::GaussianBlur(small, small, cv::Size(0, 0), sigma / shrink);
        cv::resize(small, light, source.size(), 0, 0, cv::INTER_LINEAR);
        // Each pixel over its light, stretched so that 1 % of pixels lie below black and 1 % above
        // white: a bright spot or a shadow no longer decides the threshold.
        // 1024 a unit: a code's modules lie between about 0.2 and 1.3 of their light.
        cv::divide(source, light + 1, ratio, 1024.0, CV_16U);
        int bins = 8192;
        std::vector<int> histogram(bins, 0);
        for (int y = 0; y < height; y += 2) {
            const unsigned short *row = ratio.ptr<unsigned short>(y);
            for (int x = 0; x < width; x += 2) histogram[std::min<int>(row[x], bins - 1)]++;
        }
        long long total = 0, seen = 0;
        for (int count : histogram) total += count;
        int low = 0, high = bins - 1;
        for (int i = 0; i < bins; i++) {
            seen += histogram[i];
            if (seen * 100 <= total) low = i;
            if (seen * 100 < total * 99) high = i + 1;
        }
        double scale = 255.0 / std::max(1, high - low);
        ratio.convertTo(light, CV_8U, scale, -low * scale);
        unsharp(light, 2.0, target);
        return target.data == out ? 0 : -1;
    } catch (const std::exception &) {
        return -1;
    }
}
