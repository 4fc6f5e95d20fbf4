// Still-image decoding for `lookout scan`: OpenCV's codecs, straight to gray.
#include "COpenCV.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" int lk_image_decode_gray(const unsigned char *data, size_t length, unsigned char **pixels,
                                    int *width, int *height, char *err, size_t err_len) {
    try {
        cv::Mat encoded(1, (int)length, CV_8UC1, const_cast<unsigned char *>(data));
        cv::Mat gray = cv::imdecode(encoded, cv::IMREAD_GRAYSCALE);
        if (gray.empty() || gray.type() != CV_8UC1) {
            std::snprintf(err, err_len, "not an image format OpenCV can decode");
            return -1;
        }
        size_t size = (size_t)gray.cols * (size_t)gray.rows;
        unsigned char *copy = (unsigned char *)std::malloc(size);
        if (!copy) {
            std::snprintf(err, err_len, "out of memory");
            return -1;
        }
        for (int y = 0; y < gray.rows; y++) {
            std::memcpy(copy + (size_t)y * gray.cols, gray.ptr(y), (size_t)gray.cols);
        }
        *pixels = copy;
        *width = gray.cols;
        *height = gray.rows;
        return 0;
    } catch (const cv::Exception &e) {
        std::snprintf(err, err_len, "%s", e.what());
        return -1;
    }
}

extern "C" void lk_image_free(unsigned char *pixels) { std::free(pixels); }
