// zxing-cpp in a long-lived worker process (see CZXing.h), the helper program lookout-zxing
// started with posix_spawn: the image goes through a shared memfd mapping, the request and the
// results through a socketpair.
//
// Not a fork of this process: a fork of a multithreaded process copies locks other threads hold
// (the loader's, the C++ unwinder's, a static initialiser's guard), and a child that needed one
// hung until it was killed, losing reads under load. An exec'd helper starts with none held.
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
#include <sys/socket.h>
#include <spawn.h>
#include <string>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

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
    int image_fd = -1;              // its memfd, handed to each worker started
    size_t image_capacity = 0;
    int starts = 0;
};

// The worker's loop: one request, one read over the shared image, one reply; ends when the
// parent closes its end (or exits).
[[noreturn]] static void serve(int socket, const unsigned char *image) {
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

namespace {
// The worker's descriptors in the helper: its socket and the image's memfd.
constexpr int worker_socket_fd = 3, worker_image_fd = 4;
} // namespace

extern "C" int lk_zx_worker_main(int argc, char **argv) {
    // lookout-zxing CAPACITY, started by lk_zx_worker_read; it ends when its socket does (the
    // reader's end, or the whole process, killed or not: the kernel closes the other end).
    struct stat socket_status;
    if (argc != 2 || fstat(worker_socket_fd, &socket_status) != 0 || !S_ISSOCK(socket_status.st_mode)) {
        std::fprintf(stderr, "lookout-zxing: Lookout's zxing-cpp reader; lookout starts it, not a user\n");
        return 64;
    }
    size_t capacity = std::strtoull(argv[1], nullptr, 10);
    quiet_child();
    prepare_converters();
    void *image = mmap(nullptr, capacity, PROT_READ, MAP_SHARED, worker_image_fd, 0);
    if (capacity == 0 || image == MAP_FAILED) return 1;
    close(worker_image_fd);
    serve(worker_socket_fd, static_cast<const unsigned char *>(image));
}

// Where the helper program is: $LOOKOUT_ZXING_HELPER, else beside this program (a build folder),
// else ../lib/lookout/ from it (/usr/bin -> /usr/lib/lookout, Debian's place for a package's
// private programs; /usr/local/bin -> /usr/local/lib/lookout).
static std::string helper_path() {
    if (const char *given = std::getenv("LOOKOUT_ZXING_HELPER"); given && *given) return given;
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return "lookout-zxing";
    std::string folder(self, (size_t)length);
    folder.erase(folder.rfind('/') + 1);
    for (const char *relative : {"lookout-zxing", "../lib/lookout/lookout-zxing"}) {
        std::string candidate = folder + relative;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return folder + "lookout-zxing";
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
    if (worker->image_fd >= 0) close(worker->image_fd);
    worker->image_fd = -1;
    int fd = memfd_create("lookout-zxing", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)capacity) != 0) {
        if (err && err_len > 0) std::snprintf(err, err_len, "memfd: %s", std::strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    void *mapping = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapping == MAP_FAILED) {
        if (err && err_len > 0) std::snprintf(err, err_len, "mmap: %s", std::strerror(errno));
        close(fd);
        return false;
    }
    worker->image = static_cast<unsigned char *>(mapping);
    worker->image_fd = fd;
    worker->image_capacity = capacity;
    return true;
}

extern "C" const char *lk_zx_helper_path(void) {
    static const std::string path = helper_path();
    return path.c_str();
}

// Starts the helper with its socket as descriptor 3, the image's memfd as 4, standard input and
// output on /dev/null, and no other descriptor of this process; every signal unblocked.
static bool start(lk_zx_worker *worker, char *err, size_t err_len) {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        if (err && err_len > 0) std::snprintf(err, err_len, "socketpair: %s", std::strerror(errno));
        return false;
    }
    const std::string helper = lk_zx_helper_path();
    std::string capacity = std::to_string(worker->image_capacity);
    char *arguments[] = {const_cast<char *>("lookout-zxing"), capacity.data(), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    // Copies above 4 first: a descriptor that is 3 or 4 here would be overwritten by the other's dup2.
    int socket_copy = fcntl(ends[1], F_DUPFD_CLOEXEC, worker_image_fd + 1);
    int image_copy = fcntl(worker->image_fd, F_DUPFD_CLOEXEC, worker_image_fd + 1);
    posix_spawn_file_actions_adddup2(&actions, socket_copy, worker_socket_fd);
    posix_spawn_file_actions_adddup2(&actions, image_copy, worker_image_fd);
    posix_spawn_file_actions_addclosefrom_np(&actions, worker_image_fd + 1);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    sigset_t defaults;
    sigfillset(&defaults);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t child = -1;
    int code = socket_copy < 0 || image_copy < 0 ? errno
        : posix_spawn(&child, helper.c_str(), &actions, &attributes, arguments, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    for (int fd : {socket_copy, image_copy, ends[1]}) if (fd >= 0) close(fd);
    if (code != 0) {
        if (err && err_len > 0) std::snprintf(err, err_len, "cannot start %s: %s", helper.c_str(), std::strerror(code));
        close(ends[0]);
        return false;
    }
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
    if (worker->image_fd >= 0) close(worker->image_fd);
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
