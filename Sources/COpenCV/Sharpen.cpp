// Unsharp masking of a luma plane, for the second look at blurred codes: bars and modules a
// camera smeared into each other get their edges back (the image plus twice its difference from
// a Gaussian blur of sigma 2). Used on frames ZBar read nothing in, within the second pass's
// budget; cv::GaussianBlur runs on the calling thread for images of this size.
#include "COpenCV.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

extern "C" int lk_sharpen(const unsigned char *gray, int width, int height, int stride, unsigned char *out) {
    try {
        cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
        cv::Mat target(height, width, CV_8UC1, out, (size_t)width);
        thread_local cv::Mat blurred; // kept from call to call on each code queue
        cv::GaussianBlur(source, blurred, cv::Size(0, 0), 2.0);
        cv::addWeighted(source, 3.0, blurred, -2.0, 0, target);
        return target.data == out ? 0 : -1;
    } catch (const std::exception &) {
        return -1;
    }
}
