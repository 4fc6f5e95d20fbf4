// zxing-cpp in a forked child per look (see CZXing.h): the child shares the image copy-on-write
// and sends its results through a pipe.
#include "CZXing.h"
#include "ZXingChild.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace lookout_zxing;

extern "C" int lk_zxing_read_regions_isolated(const unsigned char *gray, int width, int height, int stride, int formats,
                                              const lk_zx_region *regions, int region_count, int budget_ms,
                                              lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity,
                                              int timeout_ms, char *err, size_t err_len) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        if (err && err_len > 0) std::snprintf(err, err_len, "pipe: %s", std::strerror(errno));
        return -1;
    }
    long long start = now_ms();
    long long deadline = start + timeout_ms;
    lookout_zxing::prepare_converters();
    pid_t child = fork();
    if (child < 0) {
        if (err && err_len > 0) std::snprintf(err, err_len, "fork: %s", std::strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (child == 0) {
        close(fds[0]);
        quiet_child();
        int count = read_codes(gray, width, height, stride, formats, regions, region_count,
                               budget_ms > 0 ? start + budget_ms : 0, out, capacity, bytes, bytes_capacity);
        _exit(send_results(fds[1], count, out, bytes) ? 0 : 1);
    }
    close(fds[1]);
    int status_code = receive_results(fds[0], deadline, out, capacity, bytes, bytes_capacity);
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

extern "C" int lk_zxing_read_isolated(const unsigned char *gray, int width, int height, int stride, int formats,
                                      lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity,
                                      int timeout_ms, char *err, size_t err_len) {
    lk_zx_region whole = {0, 0, width, height, 1};
    return lk_zxing_read_regions_isolated(gray, width, height, stride, formats, &whole, 1, 0, out, capacity, bytes,
                                          bytes_capacity, timeout_ms, err, err_len);
}
