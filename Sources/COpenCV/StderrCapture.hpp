// Keeps what a library writes straight to standard error while a call runs: libpng prints
// "libpng error: ..." and OpenCV its own warnings there, but Lookout says one sentence per
// problem and shows the library's text only with --verbose. The text goes to an anonymous file,
// never a pipe, so a chatty library cannot block on a full pipe.
// Descriptor 2 is the process's: while a capture runs, what any thread writes there is kept
// too, so only callers that own standard error ask for it (the command line, `lookout scan`);
// captures are serialized so that descriptor 2 is always given back.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mutex>
#include <string>

class StderrCapture {
public:
    explicit StderrCapture(bool enabled) {
        if (!enabled) return;
        lock_ = std::unique_lock<std::mutex>(mutex());
        file_ = memfd_create("lookout-stderr", MFD_CLOEXEC);
        if (file_ < 0) return;
        saved_ = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0); // a child started meanwhile does not inherit it
        if (saved_ < 0 || dup2(file_, STDERR_FILENO) < 0) restore();
    }

    ~StderrCapture() {
        restore();
        if (file_ >= 0) close(file_);
    }

    StderrCapture(const StderrCapture &) = delete;
    StderrCapture &operator=(const StderrCapture &) = delete;

    // Ends the capture and returns what was written (at most 4 KiB).
    std::string text() {
        restore();
        std::string result;
        if (file_ < 0) return result;
        char buffer[4096];
        ssize_t n = pread(file_, buffer, sizeof buffer, 0);
        if (n > 0) result.assign(buffer, (size_t)n);
        while (!result.empty() && (result.back() == '\n' || result.back() == ' ')) result.pop_back();
        return result;
    }

private:
    static std::mutex &mutex() {
        static std::mutex shared;
        return shared;
    }

    void restore() {
        if (saved_ >= 0) {
            dup2(saved_, STDERR_FILENO);
            close(saved_);
            saved_ = -1;
        }
    }

    std::unique_lock<std::mutex> lock_;
    int file_ = -1;
    int saved_ = -1;
};
