// Local contrast normalisation of a luma plane, for faint symbols: a label in the dark or in low
// contrast whose bars differ by a few grey levels, too few for the places of rows (which look for
// strong contrast) and for zxing-cpp's local threshold (which takes a block of under 24 levels
// for blank). Each pixel's distance from the mean around it, in units of the deviation there.
#include "COpenCV.h"
#include "OpenCVCall.hpp"

#include <algorithm>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

extern "C" int lk_normalize_contrast(const unsigned char *gray, int width, int height, int stride, int radius,
                                     unsigned char *out) {
    if (!gray || !out || width < 1 || height < 1 || stride < width || radius < 1) return -1;
    OpenCVCall call;
    try {
        cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
        cv::Mat target(height, width, CV_8UC1, out, (size_t)width);
        thread_local cv::Mat value, mean, square, deviation; // kept from call to call on each code queue
        source.convertTo(value, CV_32F);
        cv::Size window(2 * radius + 1, 2 * radius + 1);
        cv::boxFilter(value, mean, CV_32F, window, cv::Point(-1, -1), true, cv::BORDER_REPLICATE);
        cv::sqrBoxFilter(value, square, CV_32F, window, cv::Point(-1, -1), true, cv::BORDER_REPLICATE);
        // Variance = E[x^2] - E[x]^2, clamped at 0 against rounding; the 4 levels added keep flat
        // ground (sensor noise of a level or two) from being stretched into texture.
        cv::subtract(square, mean.mul(mean), deviation);
        cv::max(deviation, 0, deviation);
        cv::sqrt(deviation, deviation);
        deviation += 4.0f;
        cv::subtract(value, mean, value);
        cv::divide(value, deviation, value, 48.0);
        value.convertTo(target, CV_8U, 1.0, 128.0);
        return target.data == out ? 0 : -1;
    } catch (const std::exception &) {
        return -1;
    }
}
