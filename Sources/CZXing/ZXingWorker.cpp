// zxing-cpp in a long-lived forked worker (see CZXing.h): the image goes through a shared memfd
// mapping, the request and the results through a socketpair.
#include "CZXing.h"
#include "ZXingChild.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace lookout_zxing;

namespace {
constexpr int max_regions = 64;

struct Request {
    int width, height, formats, region_count, budget_ms;
    lk_zx_region regions[max_regions];
};
} // namespace

struct lk_zx_worker {
    pid_t pid = -1;
    int socket = -1;
    unsigned char *image = nullptr; // the shared mapping the worker reads images from
    size_t image_capacity = 0;
    int starts = 0;
};

// Closes every descriptor above standard error but `keep`, and points standard input and output
// at /dev/null: the worker outlives many of the parent's descriptors (sockets, devices, pipe ends),
// which it must not hold open.
static void close_all_but(int keep) {
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
        dup2(null_fd, STDOUT_FILENO);
    }
    if (keep > 3) syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u);
    if (syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) != 0) {
        for (long fd = keep + 1, last = sysconf(_SC_OPEN_MAX); fd < last; fd++) close((int)fd);
    }
}

// The worker's loop: one request, one read over the shared image, one reply; ends when the
// parent closes its end (or exits).
[[noreturn]] static void serve(int socket, const unsigned char *image) {
    quiet_child();
    close_all_but(socket);
    std::vector<lk_zx_code> codes(16);
    std::vector<unsigned char> bytes(16 * 4096);
    Request request;
    for (;;) {
        if (read_until(socket, &request, sizeof request, 0) != (long)sizeof request) _exit(0);
        long long deadline = request.budget_ms > 0 ? now_ms() + request.budget_ms : 0;
        int regions = std::max(0, std::min(request.region_count, max_regions));
        int count = read_codes(image, request.width, request.height, request.width, request.formats, request.regions,
                               regions, deadline, codes.data(), (int)codes.size(), bytes.data(), (int)bytes.size());
        if (!send_results(socket, count, codes.data(), bytes.data())) _exit(0);
    }
}

// Ends the worker, if any, and reaps it; returns its wait status. Idempotent.
static int stop(lk_zx_worker *worker) {
    int status = 0;
    if (worker->socket >= 0) {
        close(worker->socket);
        worker->socket = -1;
    }
    if (worker->pid > 0) {
        kill(worker->pid, SIGKILL);
        while (waitpid(worker->pid, &status, 0) < 0 && errno == EINTR) {}
        worker->pid = -1;
    }
    return status;
}

// A shared mapping for images of up to `pixels` (a memfd, so it shows by name in
// /proc/PID/maps); a worker is restarted to inherit a larger one.
static bool map_shared(lk_zx_worker *worker, size_t pixels, char *err, size_t err_len) {
    if (worker->image && worker->image_capacity >= pixels) return true;
    stop(worker);
    if (worker->image) munmap(worker->image, worker->image_capacity);
    worker->image = nullptr;
    size_t capacity = (pixels + 4095) / 4096 * 4096;
    int fd = memfd_create("lookout-zxing", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)capacity) != 0) {
        if (err && err_len > 0) std::snprintf(err, err_len, "memfd: %s", std::strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    void *mapping = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (mapping == MAP_FAILED) {
        if (err && err_len > 0) std::snprintf(err, err_len, "mmap: %s", std::strerror(errno));
        return false;
    }
    worker->image = static_cast<unsigned char *>(mapping);
    worker->image_capacity = capacity;
    return true;
}

static bool start(lk_zx_worker *worker, char *err, size_t err_len) {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        if (err && err_len > 0) std::snprintf(err, err_len, "socketpair: %s", std::strerror(errno));
        return false;
    }
    prepare_converters();
    pid_t child = fork();
    if (child < 0) {
        if (err && err_len > 0) std::snprintf(err, err_len, "fork: %s", std::strerror(errno));
        close(ends[0]);
        close(ends[1]);
        return false;
    }
    if (child == 0) serve(ends[1], worker->image);
    close(ends[1]);
    worker->pid = child;
    worker->socket = ends[0];
    worker->starts += 1;
    return true;
}

extern "C" lk_zx_worker *lk_zx_worker_create(void) { return new (std::nothrow) lk_zx_worker(); }

extern "C" void lk_zx_worker_destroy(lk_zx_worker *worker) {
    if (!worker) return;
    stop(worker);
    if (worker->image) munmap(worker->image, worker->image_capacity);
    delete worker;
}

extern "C" int lk_zx_worker_starts(const lk_zx_worker *worker) { return worker ? worker->starts : 0; }

extern "C" int lk_zx_worker_pid(const lk_zx_worker *worker) { return worker ? worker->pid : -1; }

extern "C" int lk_zx_worker_read(lk_zx_worker *worker, const unsigned char *gray, int width, int height, int stride, int formats,
                                 const lk_zx_region *regions, int region_count, int budget_ms,
                                 lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity,
                                 int timeout_ms, char *err, size_t err_len) {
    if (!worker || width <= 0 || height <= 0 || region_count <= 0) return 0;
    if (!map_shared(worker, (size_t)width * height, err, err_len)) return -1;
    if (worker->pid <= 0 && !start(worker, err, err_len)) return -1;
    for (int row = 0; row < height; row++) std::memcpy(worker->image + (size_t)row * width, gray + (size_t)row * stride, (size_t)width);
    Request request = {width, height, formats, std::min(region_count, max_regions), budget_ms, {}};
    std::copy(regions, regions + request.region_count, request.regions);
    int count = -2;
    if (write_all(worker->socket, &request, sizeof request)) {
        count = receive_results(worker->socket, now_ms() + timeout_ms, out, capacity, bytes, bytes_capacity);
    }
    if (count < 0) {
        // Died on this image (an assertion), sent nothing sensible, or overran: the image is
        // skipped, and the next read starts a new worker.
        int status = stop(worker);
        if (err && err_len > 0) {
            if (count == -3) std::snprintf(err, err_len, "zxing-cpp took over %d ms", timeout_ms);
            else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) std::snprintf(err, err_len, "zxing-cpp stopped by signal %d", WTERMSIG(status));
            else std::snprintf(err, err_len, "zxing-cpp's worker sent no result");
        }
        if (count == -1) count = -2;
    }
    return count;
}

extern "C" const void *lk_zx_worker_image(const lk_zx_worker *worker) { return worker ? worker->image : nullptr; }
