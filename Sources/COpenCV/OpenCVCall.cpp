// See OpenCVCall.hpp.
#include "COpenCV.h"
#include "OpenCVCall.hpp"

#include <opencv2/core.hpp>

#include <exception>
#include <pthread.h>

namespace {
// Writers first (glibc's default lets new readers pass a waiting writer for ever); not
// recursive, which is why no thread may hold two calls.
pthread_rwlock_t *calls() {
    static pthread_rwlock_t *lock = [] {
        static pthread_rwlock_t made;
        pthread_rwlockattr_t attributes;
        pthread_rwlockattr_init(&attributes);
        pthread_rwlockattr_setkind_np(&attributes, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        pthread_rwlock_init(&made, &attributes);
        pthread_rwlockattr_destroy(&attributes);
        return &made;
    }();
    return lock;
}

int threads_set = 0; // written with calls() held for writing; 0: OpenCV's default

// With calls() not held.
void use_threads(int wanted) {
    pthread_rwlock_wrlock(calls()); // once no OpenCV call runs
    // Released whatever happens: a throw left holding it would stop every OpenCV call for good.
    struct Release {
        ~Release() { pthread_rwlock_unlock(calls()); }
    } release;
    if (threads_set != wanted) {
        cv::setNumThreads(wanted > 0 ? wanted : -1);
        threads_set = wanted;
    }
}
} // namespace

OpenCVCall::OpenCVCall() { pthread_rwlock_rdlock(calls()); }

// The count as wanted (every face detection asks): one read lock when it is so already. Another
// thread may change it again before this call's lock: the call then runs with that count, which
// costs time, never safety.
OpenCVCall::OpenCVCall(int threads) {
    pthread_rwlock_rdlock(calls());
    if (threads_set == threads) return;
    pthread_rwlock_unlock(calls());
    use_threads(threads);
    pthread_rwlock_rdlock(calls());
}

OpenCVCall::~OpenCVCall() { pthread_rwlock_unlock(calls()); }

extern "C" void lk_opencv_use_threads(int threads) {
    try {
        OpenCVCall call(threads);
    } catch (const std::exception &) {
        // The count stays as it was; OpenCV's exception has nowhere to go through C.
    }
}
