// Still-image decoding for `lookout scan`: OpenCV's codecs, straight to gray.
#include "COpenCV.h"
#include "OpenCVCall.hpp"
#include "StderrCapture.hpp"

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

static imdecode_function load_imdecode(size_t max_pixels, std::string &error) {
    static imdecode_function function = nullptr;
    static std::string load_error;
    static std::once_flag once;
    std::call_once(once, [max_pixels] {
        // OpenCV reads its pixel limit once, when the codecs load: every decoder then refuses a
        // picture whose header declares more before it allocates anything. A limit the user set
        // in the environment stays.
        setenv("OPENCV_IO_MAX_IMAGE_PIXELS", std::to_string(max_pixels).c_str(), 0);
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

extern "C" int lk_image_decode_gray(const unsigned char *data, size_t length, size_t max_pixels, int capture_stderr,
                                    unsigned char **pixels, int *width, int *height, char *err, size_t err_len) {
    OpenCVCall call;
    std::string load_error;
    imdecode_function imdecode = load_imdecode(max_pixels, load_error);
    if (!imdecode) {
        std::snprintf(err, err_len, "%s", load_error.c_str());
        return LK_IMAGE_UNAVAILABLE;
    }
    StderrCapture captured(capture_stderr != 0);
    std::string detail;
    int status = LK_IMAGE_DAMAGED;
    try {
        cv::Mat encoded(1, (int)length, CV_8UC1, const_cast<unsigned char *>(data));
        cv::Mat gray = imdecode(encoded, cv::IMREAD_GRAYSCALE);
        if (!gray.empty() && gray.type() == CV_8UC1) {
            size_t size = (size_t)gray.cols * (size_t)gray.rows;
            unsigned char *copy = (unsigned char *)std::malloc(size);
            if (copy) {
                for (int y = 0; y < gray.rows; y++) {
                    std::memcpy(copy + (size_t)y * gray.cols, gray.ptr(y), (size_t)gray.cols);
                }
                *pixels = copy;
                *width = gray.cols;
                *height = gray.rows;
                status = LK_IMAGE_OK;
            } else {
                detail = "out of memory";
                status = LK_IMAGE_UNAVAILABLE;
            }
        }
    } catch (const cv::Exception &e) {
        detail = e.what();
    } catch (const std::exception &e) { // std::bad_alloc
        detail = e.what();
        status = LK_IMAGE_UNAVAILABLE;
    }
    std::string logged = captured.text();
    // OpenCV catches its decoders' errors and logs them: the limit shows up in either.
    if (status != LK_IMAGE_OK && (logged + detail).find("CV_IO_MAX_IMAGE") != std::string::npos) {
        status = LK_IMAGE_TOO_LARGE;
    }
    if (status != LK_IMAGE_OK) {
        std::string text = logged + (logged.empty() || detail.empty() ? "" : " ") + detail;
        std::snprintf(err, err_len, "%s", text.c_str());
    }
    return status;
}

extern "C" void lk_image_free(unsigned char *pixels) { std::free(pixels); }
