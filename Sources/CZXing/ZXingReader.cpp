// zxing-cpp behind a C API: one call per image, results copied into the caller's buffers.
#include "CZXing.h"

// text() in UTF-8 (zxing-cpp 1.4 otherwise gives a std::wstring).
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstring>
#include <exception>

// Reads the codes of `formats` in an 8-bit gray image, trying harder and rotated. Payloads are the
// symbol's bytes; for a QR code with an ECI designator, its text in UTF-8 (as ZBar gives). Only
// ever called in the child (see lk_zxing_read_isolated): in process, an assertion would abort.
static int read_codes(const unsigned char *gray, int width, int height, int stride, int formats,
                      lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity) {
    try {
        ZXing::ImageView image(gray, width, height, ZXing::ImageFormat::Lum, stride);
        ZXing::DecodeHints hints;
        hints.setFormats(ZXing::BarcodeFormats(static_cast<ZXing::BarcodeFormat>(formats)));
        hints.setTryHarder(true);
        hints.setTryRotate(true);
        hints.setTryDownscale(true);
        auto results = ZXing::ReadBarcodes(image, hints);
        int count = 0, used = 0;
        for (const auto &result : results) {
            if (!result.isValid() || count >= capacity) continue;
            std::string text;
            const unsigned char *payload;
            size_t length;
            if (result.hasECI()) { // ZBar applies the designator too: the text, in UTF-8
                text = result.text();
                payload = reinterpret_cast<const unsigned char *>(text.data());
                length = text.size();
            } else {
                payload = result.bytes().data();
                length = result.bytes().size();
            }
            if ((int)length > bytes_capacity - used) continue;
            std::memcpy(bytes + used, payload, length);
            lk_zx_code &code = out[count++];
            code.format = static_cast<int>(result.format());
            code.offset = used;
            code.length = (int)length;
            used += (int)length;
            const auto &position = result.position();
            for (int i = 0; i < 4; i++) {
                code.x[i] = position[i].x;
                code.y[i] = position[i].y;
            }
        }
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}

// Writes all of `length` bytes, retrying short writes and EINTR.
static bool write_all(int fd, const void *data, size_t length) {
    const char *p = static_cast<const char *>(data);
    while (length > 0) {
        ssize_t n = write(fd, p, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        length -= (size_t)n;
    }
    return true;
}

// Reads up to `length` bytes until EOF or the deadline; returns how many arrived, -1 on timeout.
static long read_until(int fd, void *data, size_t length, long long deadline_ms) {
    char *p = static_cast<char *>(data);
    size_t got = 0;
    while (got < length) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long left = deadline_ms - (now.tv_sec * 1000LL + now.tv_nsec / 1000000);
        if (left <= 0) return -1;
        struct pollfd pfd = {fd, POLLIN, 0};
        int ready = poll(&pfd, 1, (int)std::min(left, 1000LL));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return got;
        if (ready == 0) continue;
        ssize_t n = read(fd, p + got, length - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    return (long)got;
}

extern "C" int lk_zxing_read_isolated(const unsigned char *gray, int width, int height, int stride, int formats,
                                      lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity,
                                      int timeout_ms, char *err, size_t err_len) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        if (err && err_len > 0) std::snprintf(err, err_len, "pipe: %s", std::strerror(errno));
        return -1;
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long long deadline = start.tv_sec * 1000LL + start.tv_nsec / 1000000 + timeout_ms;
    pid_t child = fork();
    if (child < 0) {
        if (err && err_len > 0) std::snprintf(err, err_len, "fork: %s", std::strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (child == 0) {
        close(fds[0]);
        // A failed assertion ends the child quietly: the parent counts it. No crash handler (the
        // Swift runtime's backtracer) and no message on the service's stderr.
        for (int signal_number : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE}) std::signal(signal_number, SIG_DFL);
        int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
        int count = read_codes(gray, width, height, stride, formats, out, capacity, bytes, bytes_capacity);
        int used = 0;
        for (int i = 0; i < count; i++) used = std::max(used, out[i].offset + out[i].length);
        bool sent = write_all(fds[1], &count, sizeof count)
            && (count <= 0 || (write_all(fds[1], out, sizeof(lk_zx_code) * count) && write_all(fds[1], &used, sizeof used)
                               && write_all(fds[1], bytes, (size_t)used)));
        _exit(sent ? 0 : 1);
    }
    close(fds[1]);
    int count = -2;
    long got = read_until(fds[0], &count, sizeof count, deadline);
    int status_code = -2;
    if (got == -1) {
        status_code = -3;
    } else if (got == sizeof count && count >= 0 && count <= capacity) {
        int used = 0;
        if (count == 0
            || (read_until(fds[0], out, sizeof(lk_zx_code) * count, deadline) == (long)(sizeof(lk_zx_code) * count)
                && read_until(fds[0], &used, sizeof used, deadline) == (long)sizeof used && used >= 0 && used <= bytes_capacity
                && read_until(fds[0], bytes, (size_t)used, deadline) == used)) {
            status_code = count;
        }
    }
    close(fds[0]);
    if (status_code == -3) kill(child, SIGKILL);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    if (status_code >= 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) status_code = -2;
    if (status_code == -2 && err && err_len > 0) {
        if (WIFSIGNALED(status)) std::snprintf(err, err_len, "zxing-cpp stopped by signal %d", WTERMSIG(status));
        else std::snprintf(err, err_len, "zxing-cpp's reader sent no result");
    }
    if (status_code == -3 && err && err_len > 0) std::snprintf(err, err_len, "zxing-cpp took over %d ms", timeout_ms);
    return status_code;
}
