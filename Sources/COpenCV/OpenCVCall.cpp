// See OpenCVCall.hpp.
#include "COpenCV.h"
#include "OpenCVCall.hpp"

#include <opencv2/core.hpp>

#include <mutex>

namespace {
std::shared_mutex &calls() {
    static std::shared_mutex running;
    return running;
}

int threads_set = 0; // guarded by calls(), taken exclusively; 0: OpenCV's default

void use_threads(int wanted) {
    {
        std::shared_lock<std::shared_mutex> reading(calls());
        if (threads_set == wanted) return;
    }
    std::unique_lock<std::shared_mutex> changing(calls()); // once no OpenCV call runs
    if (threads_set != wanted) {
        cv::setNumThreads(wanted > 0 ? wanted : -1);
        threads_set = wanted;
    }
}
} // namespace

OpenCVCall::OpenCVCall() : lock_(calls()) {}

// Another thread may change the count between the two locks: the call then runs with that
// count, which costs time, never safety.
OpenCVCall::OpenCVCall(int threads) {
    use_threads(threads);
    lock_ = std::shared_lock<std::shared_mutex>(calls());
}

extern "C" void lk_opencv_use_threads(int threads) { use_threads(threads); }
