// Still-image decoding for `lookout scan`: OpenCV's codecs, straight to gray.
#include "COpenCV.h"

#include <opencv2/core.hpp>
#include <opencv2/core/version.hpp>
#include <opencv2/imgcodecs.hpp>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

// OpenCV's image codecs are loaded on first use (lookout scan) rather than linked: on Debian,
// libopencv_imgcodecs pulls in GDAL, HDF and some hundred other libraries, which cost every
// `lookout run` some 20 MB of resident memory for a feature it does not use.
using imdecode_function = cv::Mat (*)(const cv::_InputArray &, int);

static imdecode_function load_imdecode(std::string &error) {
    static imdecode_function function = nullptr;
    static std::string load_error;
    static std::once_flag once;
    std::call_once(once, [] {
        std::string soname = "libopencv_imgcodecs.so." + std::to_string(CV_VERSION_MAJOR * 100 + CV_VERSION_MINOR);
        void *library = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) library = dlopen("libopencv_imgcodecs.so", RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char *message = dlerror();
            load_error = std::string("OpenCV's image codecs cannot be loaded: ") + (message ? message : soname.c_str());
            return;
        }
        // cv::imdecode(InputArray, int), the symbol of the version compiled against.
        function = reinterpret_cast<imdecode_function>(dlsym(library, "_ZN2cv8imdecodeERKNS_11_InputArrayEi"));
        if (!function) load_error = "cv::imdecode is missing from " + soname;
    });
    error = load_error;
    return function;
}

extern "C" int lk_image_decode_gray(const unsigned char *data, size_t length, unsigned char **pixels,
                                    int *width, int *height, char *err, size_t err_len) {
    try {
        cv::Mat encoded(1, (int)length, CV_8UC1, const_cast<unsigned char *>(data));
        std::string load_error;
        imdecode_function imdecode = load_imdecode(load_error);
        if (!imdecode) {
            std::snprintf(err, err_len, "%s", load_error.c_str());
            return -1;
        }
        cv::Mat gray = imdecode(encoded, cv::IMREAD_GRAYSCALE);
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
