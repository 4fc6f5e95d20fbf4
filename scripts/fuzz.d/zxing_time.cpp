// Times lk_zx_read on inputs in the zxing fuzz target's layout (zxing_fuzz.cpp), in a release
// build: zxing-time links this, the target's entry point and Lookout's C++ with -O2 -DNDEBUG
// against the release libZXing.a that Lookout links. Each input is read `ZXING_TIME_RUNS` times
// (3 unless set); the entry point prints each read's time (LOOKOUT_ZXING_FUZZ_VERBOSE).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    setenv("LOOKOUT_ZXING_FUZZ_VERBOSE", "1", 1);
    int runs = getenv("ZXING_TIME_RUNS") ? atoi(getenv("ZXING_TIME_RUNS")) : 3;
    for (int i = 1; i < argc; i++) {
        FILE *file = fopen(argv[i], "rb");
        if (!file) { perror(argv[i]); return 66; }
        std::vector<uint8_t> data;
        uint8_t buffer[1 << 16];
        for (size_t n; (n = fread(buffer, 1, sizeof buffer, file)) > 0;) data.insert(data.end(), buffer, buffer + n);
        fclose(file);
        fprintf(stderr, "%s\n", argv[i]);
        for (int run = 0; run < runs; run++) LLVMFuzzerTestOneInput(data.data(), data.size());
    }
    return 0;
}
