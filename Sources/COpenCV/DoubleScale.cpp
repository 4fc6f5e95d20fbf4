// Doubling a luma plane (bicubic), for the second look at codes of few pixels: a module of 1-2
// pixels becomes 2-4, which both decoders' binarisers can separate. Stills and small regions only
// (the caller bounds the size). cv::resize may run in OpenCV's threads: see OpenCVCall.hpp.
#include "COpenCV.h"
#include "OpenCVCall.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

extern "C" int lk_double_scale(const unsigned char *gray, int width, int height, int stride, unsigned char *out) {
    OpenCVCall call;
    try {
        cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
        cv::Mat target(2 * height, 2 * width, CV_8UC1, out, (size_t)(2 * width));
        cv::resize(source, target, target.size(), 0, 0, cv::INTER_CUBIC);
        return target.data == out ? 0 : -1; // resize must not have reallocated the caller's buffer
    } catch (const std::exception &) {
        return -1;
    }
}
