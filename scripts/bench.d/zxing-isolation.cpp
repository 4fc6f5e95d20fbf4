// Fork per frame against the long-lived worker (Sources/CZXing): the same reads of one 720p frame,
// N times each way, in a process holding BALLAST MB of touched memory (a running Lookout's size).
// Prints wall time per read (p50, p99) and CPU per read (this process and its children).
// Build: g++ -O2 -std=c++17 -ISources/CZXing/include -o bench-out/zxing-isolation \
//            scripts/bench.d/zxing-isolation.cpp Sources/CZXing/*.cpp -lZXing
// Usage: zxing-isolation FRAME.pgm N BALLAST_MB
#include "CZXing.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#include <vector>

static double cpu_seconds() {
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    auto seconds = [](const struct timeval &t) { return t.tv_sec + t.tv_usec / 1e6; };
    return seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(children.ru_utime) + seconds(children.ru_stime);
}

int main(int argc, char **argv) {
    if (argc < 4) return 64;
    FILE *file = std::fopen(argv[1], "rb");
    int width = 0, height = 0, maximum = 0;
    if (!file || std::fscanf(file, "P5 %d %d %d", &width, &height, &maximum) != 3) return 66;
    std::fgetc(file);
    std::vector<unsigned char> frame((size_t)width * height);
    if (std::fread(frame.data(), 1, frame.size(), file) != frame.size()) return 66;
    int reads = std::atoi(argv[2]);
    std::vector<char> ballast((size_t)std::atoi(argv[3]) << 20);
    for (size_t i = 0; i < ballast.size(); i += 4096) ballast[i] = (char)i;
    // One frame's work in video: a 360x360 window and the frame at half size.
    lk_zx_region regions[] = {{width / 2 - 180, height / 2 - 180, 360, 360, 1}, {0, 0, width, height, 2}};
    int formats = LK_ZX_AZTEC | LK_ZX_DATAMATRIX | LK_ZX_PDF417;
    lk_zx_code codes[16];
    std::vector<unsigned char> bytes(16 * 4096);
    char err[256];
    for (int mode = 0; mode < 2; mode++) {
        lk_zx_worker *worker = mode == 1 ? lk_zx_worker_create() : nullptr;
        std::vector<double> times;
        int found = 0;
        double cpu = cpu_seconds();
        for (int i = 0; i < reads; i++) {
            auto start = std::chrono::steady_clock::now();
            int count = mode == 0
                ? lk_zxing_read_regions_isolated(frame.data(), width, height, width, formats, regions, 2, 0, codes, 16,
                                                 bytes.data(), (int)bytes.size(), 5000, err, sizeof err)
                : lk_zx_worker_read(worker, frame.data(), width, height, width, formats, regions, 2, 0, codes, 16,
                                    bytes.data(), (int)bytes.size(), 5000, err, sizeof err);
            times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            found += count > 0 ? count : 0;
            if (count < 0 && i == 0) std::printf("error %d: %s\n", count, err);
        }
        if (worker) lk_zx_worker_destroy(worker); // reaps it: its CPU counts below
        cpu = cpu_seconds() - cpu;
        std::sort(times.begin(), times.end());
        std::printf("%s: %d reads, %d codes, wall p50 %.2f ms p99 %.2f ms, CPU %.2f ms/read, ballast %s MB\n",
                    mode == 0 ? "fork per read" : "worker", reads, found, times[times.size() / 2],
                    times[std::min(times.size() - 1, times.size() * 99 / 100)], cpu * 1000 / reads, argv[3]);
    }
}
