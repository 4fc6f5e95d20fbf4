// OpenCV's thread count is process-wide, and Debian's OpenCV runs its parallel loops (resize,
// blur, the cascade's scales) in one TBB arena that cv::setNumThreads replaces. A change while
// another thread is inside such a loop crashes in TBB: a face detection switching between one
// thread and OpenCV's default beside a code queue's resize took `lookout run` down, and two
// threads doing just that crash within milliseconds. So every entry point that runs OpenCV's
// image functions holds an OpenCVCall for the whole call (loading a cascade runs none), and a
// change of count waits until no call runs. Calls that start while a change waits wait behind
// it, so busy code queues cannot hold a face detection off. Those entry points never call each
// other, so no thread holds two.
#pragma once

class OpenCVCall {
public:
    // A call that leaves the thread count as it is.
    OpenCVCall();
    // A call that wants `threads` OpenCV threads: 1, the calling thread only; 0, OpenCV's default.
    explicit OpenCVCall(int threads);
    ~OpenCVCall();

    OpenCVCall(const OpenCVCall &) = delete;
    OpenCVCall &operator=(const OpenCVCall &) = delete;
};
