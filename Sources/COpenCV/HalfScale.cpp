// Halving a luma plane with OpenCV's vectorised area resize (2x2 means).
#include "COpenCV.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

extern "C" void lk_half_scale(const unsigned char *gray, int width, int height, int stride, unsigned char *out) {
    cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
    cv::Mat destination(height / 2, width / 2, CV_8UC1, out, (size_t)(width / 2));
    cv::resize(source(cv::Rect(0, 0, width / 2 * 2, height / 2 * 2)), destination, destination.size(), 0, 0,
               cv::INTER_AREA);
}
