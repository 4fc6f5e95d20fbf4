// libFuzzer target over zxing-cpp 3 in process: lk_zx_read, lk_zx_locate, lk_zx_find_undecoded (with
// the DataMatrix symbols it restores with erasures) and (when QR is asked for) lk_zx_read_repaired
// (Sources/CZXing), and lk_ean13_from_profiles (Sources/CPlanes) on the places of rows of bars and
// the header's regions, called
// as Lookout calls them, on a gray image and a header of how to read it. scripts/fuzz builds it with
// clang -fsanitize=fuzzer,address,undefined against the instrumented libZXing.a
// (scripts/zxing-cpp fuzz); zxing_seeds.py writes seeds in this layout.
//
// Input: a 52-byte header, then the image, row after row (height = the rest / stride; the last
// row without its padding, so that any read past the image is out of bounds).
//   0-1  width, u16 LE: 16 + v % 1009 (16..1024); with bit 15 set, 1 + (v & 0x7fff) % 8192
//   2    stride padding, bytes per row beyond the width (& 31)
//   3    flags, LK_ZX_TRY_*, LK_ZX_GLOBAL_THRESHOLD and LK_ZX_BINARY (& 255)
//   4    formats: 0 all, 1 QR, 2 EAN-13, 3 PDF417 + Aztec + DataMatrix (video), 4 the linear
//        ones, 5 the bits of bytes 5-6 (masked to LK_ZX_ bits), else all
//   7    regions: 0 the whole image, 1 shrunk 2, 2 grown (-2), 3 as `lookout scan` reads a still,
//        4 as a video frame's rotation, 5 the header's, 6 the whole then the header's, 7 the
//        places lk_zx_locate finds (small ones also grown)
//   8    how many of the header's regions (% 5)
//   9    lk_zx_locate's cell (% 40: below 4 is refused)
//   10   capacity in codes (0: 256, as Lookout); 11 payload bytes / 16 (0: 256 KiB, as Lookout)
//   12   what lk_zx_locate looks for in mode 7 (& 1: LK_ZX_PLACES_MATRIX or _ROWS; & 4:
//        _ROWS_JOINED instead); & 2: also lk_ean13_from_profiles on the first place of rows of
//        bars (grown by a tenth, as a still's linear places are) and on the header's first region
//   16   four regions of 9 bytes: x, y, width, height (i16 LE, may lie outside the image), then
//        shrink: 0 -> 1, 1 -> 2, 2 -> -2, 3 -> 0, 4 -> 3, else 1
// Every call's results are checked: counts within capacity, payloads packed in order within the
// buffer, one LK_ZX_ bit per code, a NUL-ended AIM identifier, located and undecoded places inside
// the image; an EAN-13 read from its bars' grey levels is 13 digits whose check digit holds.
// LOOKOUT_ZXING_FUZZ_VERBOSE=1 prints each input's size, regions, codes read and times to stderr.
#include "CPlanes.h"
#include "CZXing.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

constexpr size_t header_size = 52;
constexpr int all_formats = LK_ZX_AZTEC | LK_ZX_CODABAR | LK_ZX_CODE39 | LK_ZX_CODE93 | LK_ZX_CODE128 | LK_ZX_DATABAR
    | LK_ZX_DATABAR_EXPANDED | LK_ZX_DATAMATRIX | LK_ZX_EAN8 | LK_ZX_EAN13 | LK_ZX_ITF | LK_ZX_PDF417 | LK_ZX_QR
    | LK_ZX_UPCA | LK_ZX_UPCE;
constexpr int matrix_formats = LK_ZX_PDF417 | LK_ZX_AZTEC | LK_ZX_DATAMATRIX;

[[noreturn]] void broken(const char *what, long a, long b) {
    fprintf(stderr, "zxing fuzz: invariant broken: %s (%ld, %ld)\n", what, a, b);
    abort();
}

int u16(const uint8_t *p) { return p[0] | p[1] << 8; }
int i16(const uint8_t *p) { return (int16_t)(uint16_t)u16(p); }

int formats_from(const uint8_t *h) {
    switch (h[4]) {
    case 1: return LK_ZX_QR;
    case 2: return LK_ZX_EAN13;
    case 3: return matrix_formats;
    case 4: return all_formats & ~(matrix_formats | LK_ZX_QR);
    case 5: return u16(h + 5) & all_formats;
    default: return all_formats;
    }
}

lk_zx_region whole(int width, int height, int shrink) { return {0, 0, width, height, shrink}; }

// ZXingFrameReader.windows: squares of `side` at half-window steps, the last flush with the edges.
void windows(int side, int width, int height, int shrink, std::vector<lk_zx_region> &out) {
    if (side < 64) return;
    auto starts = [side](int length) {
        std::vector<int> positions;
        if (length <= side) return std::vector<int>{0};
        for (int p = 0; p < length - side; p += side / 2) positions.push_back(p);
        positions.push_back(length - side);
        return positions;
    };
    int w = std::min(side, width), h = std::min(side, height);
    for (int y : starts(height)) for (int x : starts(width)) out.push_back({x, y, w, h, shrink});
}

// lk_zx_locate, checked; the places as ZXingFrameReader.readStill adds them (small ones also grown).
void locate(const uint8_t *gray, int width, int height, int stride, int cell, int kind, int capacity,
            std::vector<lk_zx_region> *regions) {
    std::vector<lk_zx_region> found(capacity);
    int count = lk_zx_locate(gray, width, height, stride, cell, kind, found.data(), capacity);
    if (count < 0 || count > capacity) broken("lk_zx_locate count", count, capacity);
    for (int i = 0; i < count; i++) {
        const lk_zx_region &r = found[i];
        if (r.x < 0 || r.y < 0 || r.width <= 0 || r.height <= 0 || r.x + r.width > width || r.y + r.height > height)
            broken("lk_zx_locate place outside the image", r.x, r.y);
        if (!regions) continue;
        regions->push_back(r);
        if (std::max(r.width, r.height) <= 400) regions->push_back({r.x, r.y, r.width, r.height, -2});
    }
}

void check_codes(int count, int capacity, int formats, const std::vector<lk_zx_code> &codes, int bytes_capacity) {
    if (count < -1 || count > capacity) broken("lk_zx_read count", count, capacity);
    int used = 0;
    for (int i = 0; i < count; i++) {
        const lk_zx_code &c = codes[i];
        if (c.format <= 0 || (c.format & (c.format - 1)) != 0 || (c.format & all_formats) == 0)
            broken("format is not one LK_ZX_ bit", c.format, formats);
        if (c.offset != used || c.length < 0 || c.offset + c.length > bytes_capacity)
            broken("payload not packed within the buffer", c.offset, c.length);
        used += c.length;
        if (memchr(c.aim, 0, sizeof c.aim) == nullptr) broken("AIM identifier not NUL-ended", i, count);
    }
}

// lk_zx_rectify as UndecodedSymbolReader calls it: the size first, then into exactly that many
// bytes; a copy it makes has a finite homography, which takes the copy's corners of the quad back
// to the quad's corners when `exact` (a convex quad of zxing-cpp's; any floats may be too
// ill-conditioned for that).
void rectify(const unsigned char *gray, int width, int height, int stride, const float *quad, float margin, bool exact) {
    int copy_width = 0, copy_height = 0;
    double homography[8];
    int planned = lk_zx_rectify(gray, width, height, stride, quad, margin, nullptr, 0, &copy_width, &copy_height, homography);
    if (planned == -1) return;
    if (planned != 1) broken("lk_zx_rectify without a buffer", planned, 0);
    if (copy_width <= 0 || copy_height <= 0 || (long long)copy_width * copy_height > (16 << 20))
        broken("lk_zx_rectify size", copy_width, copy_height);
    if (copy_width * copy_height > (4 << 20)) return; // a copy that large only costs time here
    std::vector<unsigned char> copy((size_t)copy_width * copy_height);
    int made = lk_zx_rectify(gray, width, height, stride, quad, margin, copy.data(), (int)copy.size(), &copy_width,
                             &copy_height, homography);
    if (made != 0) broken("lk_zx_rectify into the size it asked for", made, (int)copy.size());
    const double m = margin, xs[4] = {m * copy_width, (1 - m) * copy_width, (1 - m) * copy_width, m * copy_width};
    const double ys[4] = {m * copy_height, m * copy_height, (1 - m) * copy_height, (1 - m) * copy_height};
    for (double term : homography)
        if (!std::isfinite(term)) broken("lk_zx_rectify homography not finite", made, 0);
    for (int k = 0; k < 4 && exact; k++) {
        const double *g = homography;
        double w = g[6] * xs[k] + g[7] * ys[k] + 1;
        double x = (g[0] * xs[k] + g[1] * ys[k] + g[2]) / w, y = (g[3] * xs[k] + g[4] * ys[k] + g[5]) / w;
        double tolerance = 1e-3 * (1 + std::fabs(quad[2 * k]) + std::fabs(quad[2 * k + 1]));
        if (!std::isfinite(x) || !std::isfinite(y) || std::fabs(x - quad[2 * k]) > tolerance || std::fabs(y - quad[2 * k + 1]) > tolerance)
            broken("lk_zx_rectify homography misses a corner", k, made);
    }
}

// lk_ean13_from_profiles on a place (any ints), as EAN13ProfileReader calls it: -1 for a place
// outside the image, else each half's digits empty or 13 digits whose check digit holds, and
// finite corners.
void profiles(const uint8_t *gray, int width, int height, int stride, int x, int y, int place_width, int place_height) {
    lk_ean13_band bands[2];
    float corners[8];
    int result = lk_ean13_from_profiles(gray, width, height, stride, x, y, place_width, place_height, bands, corners);
    bool inside = x >= 0 && y >= 0 && place_width >= 16 && place_height >= 8 && x <= width - place_width && y <= height - place_height
        && (double)place_width * place_height <= 4e6;
    if (result < -1 || result > 1 || (!inside && result != -1)) broken("lk_ean13_from_profiles result", result, inside);
    for (const lk_ean13_band &band : bands) {
        size_t length = strnlen(band.digits, sizeof band.digits);
        if (length == sizeof band.digits) broken("lk_ean13_from_profiles digits without a NUL", result, 0);
        if (length == 0) continue;
        if (result != 1 || length != 13) broken("lk_ean13_from_profiles digits", result, (long)length);
        int sum = 0;
        for (int i = 0; i < 13; i++) {
            if (band.digits[i] < '0' || band.digits[i] > '9') broken("lk_ean13_from_profiles not a digit", i, band.digits[i]);
            sum += (band.digits[i] - '0') * (i % 2 ? 3 : 1);
        }
        if (sum % 10) broken("lk_ean13_from_profiles check digit", sum, 0);
    }
    for (float c : corners) if (!std::isfinite(c)) broken("lk_ean13_from_profiles corner not finite", result, 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < header_size) return 0;
    const uint8_t *h = data;
    int code = u16(h);
    int width = code & 0x8000 ? 1 + (code & 0x7fff) % 8192 : 16 + code % 1009;
    int stride = width + (h[2] & 31);
    size_t rest = size - header_size;
    // Rows: full strides, and a last row of only `width` bytes.
    int height = rest < (size_t)width ? 0 : (int)((rest - width) / stride + 1);
    if (height == 0) return 0;
    size_t length = (size_t)stride * (height - 1) + width;
    // Exactly the image: AddressSanitizer reports any read past it.
    std::vector<uint8_t> image(data + header_size, data + header_size + length);
    const uint8_t *gray = image.data();

    int flags = h[3] & 255, formats = formats_from(h), cell = h[9] % 40;
    int capacity = h[10] ? h[10] : 256;
    int bytes_capacity = h[11] ? h[11] * 16 : 256 * 1024;

    std::vector<lk_zx_region> regions;
    std::vector<lk_zx_region> listed;
    for (int i = 0; i < h[8] % 5; i++) {
        const uint8_t *r = h + 16 + 9 * i;
        static const int shrinks[] = {1, 2, -2, 0, 3};
        listed.push_back({i16(r), i16(r + 2), i16(r + 4), i16(r + 6), r[8] < 5 ? shrinks[r[8]] : 1});
    }
    int shorter = std::min(width, height);
    switch (h[7] % 8) {
    case 0: regions.push_back(whole(width, height, 1)); break;
    case 1: regions.push_back(whole(width, height, 2)); break;
    case 2: regions.push_back(whole(width, height, -2)); break;
    case 3: // ZXingFrameReader.readStill
        regions.push_back(whole(width, height, 1));
        for (int kind : {LK_ZX_PLACES_ROWS, LK_ZX_PLACES_ROWS_JOINED, LK_ZX_PLACES_MATRIX})
            for (int c : {std::max(6, shorter / 180), std::max(12, shorter / 90)}) locate(gray, width, height, stride, c, kind, 24, &regions);
        for (int side : {shorter * 2 / 3, shorter / 2, shorter / 3}) windows(side, width, height, 1, regions);
        break;
    case 4: // ZXingFrameReader.frameRotation
        regions.push_back(whole(width, height, width >= 960 ? 2 : 1));
        for (int side : {height * 2 / 3, height / 2, height / 3}) windows(side, width, height, 1, regions);
        break;
    case 5: regions = listed; break;
    case 6: regions.push_back(whole(width, height, 1)); regions.insert(regions.end(), listed.begin(), listed.end()); break;
    case 7: locate(gray, width, height, stride, cell, h[12] & 4 ? LK_ZX_PLACES_ROWS_JOINED : h[12] & 1, 24, &regions); break;
    }
    locate(gray, width, height, stride, cell, LK_ZX_PLACES_MATRIX, 1 + h[10] % 24, nullptr);
    locate(gray, width, height, stride, cell, LK_ZX_PLACES_ROWS, 1 + h[10] % 24, nullptr);
    locate(gray, width, height, stride, cell, LK_ZX_PLACES_ROWS_JOINED, 1 + h[10] % 24, nullptr);

    // Exactly the capacities stated: AddressSanitizer reports any write past them.
    std::vector<lk_zx_code> codes(capacity);
    std::vector<uint8_t> bytes(bytes_capacity);
    // No budget: a deadline would make a run depend on the clock, and it only stops between regions.
    static const bool verbose = getenv("LOOKOUT_ZXING_FUZZ_VERBOSE") != nullptr;
    timespec start, end, cpu_start, cpu_end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_start);
    int count = lk_zx_read(gray, width, height, stride, formats, flags, regions.data(), (int)regions.size(), 0,
                           codes.data(), capacity, bytes.data(), bytes_capacity);
    clock_gettime(CLOCK_MONOTONIC, &end);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_end);
    if (verbose) {
        auto ms = [](timespec a, timespec b) { return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6; };
        fprintf(stderr, "zxing fuzz: %dx%d flags %d formats %#x, %zu regions: %d codes in %.1f ms (%.1f ms CPU)%s%.*s\n",
                width, height, flags, formats, regions.size(), count, ms(start, end), ms(cpu_start, cpu_end),
                count > 0 ? ", first: " : "",
                count > 0 ? std::min(codes[0].length, 40) : 0, count > 0 ? (const char *)bytes.data() + codes[0].offset : "");
    }
    check_codes(count, capacity, formats, codes, bytes_capacity);
    if (formats & LK_ZX_QR) {
        // QR codes that lost a finder, around the codes just read, as StillCodeReader asks.
        std::vector<int> known;
        for (int i = 0; i < std::max(count, 0); i++)
            for (int c = 0; c < 4; c++) known.push_back(codes[i].x[c]), known.push_back(codes[i].y[c]);
        int repaired = lk_zx_read_repaired(gray, width, height, stride, flags, known.data(), (int)known.size() / 8, 0,
                                           codes.data(), capacity, bytes.data(), bytes_capacity);
        check_codes(repaired, capacity, LK_ZX_QR, codes, bytes_capacity);
    }
    // Symbols found but not decoded, as UndecodedSymbolReader asks; exactly the capacity stated.
    const int places = 1 + h[10] % 64;
    std::vector<int> quads(8 * places), kinds(places);
    // ... and the DataMatrix symbols erasures restore, written as lk_zx_read writes codes.
    int restored = -2;
    int undecoded = lk_zx_find_undecoded(gray, width, height, stride, formats, quads.data(), kinds.data(), places,
                                         codes.data(), capacity, &restored, bytes.data(), bytes_capacity);
    if (undecoded < -1 || undecoded > places) broken("lk_zx_find_undecoded count", undecoded, places);
    if (restored < 0) broken("lk_zx_find_undecoded restored count", restored, capacity);
    check_codes(restored, capacity, formats & LK_ZX_DATAMATRIX, codes, bytes_capacity);
    for (int i = 0; i < undecoded; i++) {
        const int known_kinds = LK_ZX_QR | LK_ZX_AZTEC | LK_ZX_DATAMATRIX | LK_ZX_PDF417;
        if (!(kinds[i] & formats & known_kinds) || (kinds[i] & (kinds[i] - 1)))
            broken("lk_zx_find_undecoded format", kinds[i], formats);
        for (int c = 0; c < 4; c++) {
            int x = quads[8 * i + 2 * c], y = quads[8 * i + 2 * c + 1];
            if (x < 0 || x >= width || y < 0 || y >= height) broken("lk_zx_find_undecoded corner outside the image", x, y);
        }
        // Each place stood square, as UndecodedSymbolReader does a PDF417's: into exactly the
        // bytes its size asks, with a finite homography that puts the copy's corners of the
        // quad back on the quad's corners.
        float quad[8];
        for (int k = 0; k < 8; k++) quad[k] = (float)quads[8 * i + k];
        rectify(gray, width, height, stride, quad, 0.08f, true);
    }
    // A quad of any floats (NaN, infinities, huge, degenerate) and any margin, from the header.
    float wild[8], margin;
    std::memcpy(wild, h + 16, sizeof wild);
    std::memcpy(&margin, h + 48, sizeof margin);
    rectify(gray, width, height, stride, wild, margin, false);
    if (h[12] & 2) {
        std::vector<lk_zx_region> rows;
        locate(gray, width, height, stride, std::max(6, shorter / 180), LK_ZX_PLACES_ROWS, 1, &rows);
        for (const lk_zx_region &r : rows) {
            if (r.shrink != 1) continue;
            int dx = r.width / 10, dy = r.height / 10;
            int left = std::max(0, r.x - dx), top = std::max(0, r.y - dy);
            profiles(gray, width, height, stride, left, top, std::min(width, r.x + r.width + dx) - left,
                     std::min(height, r.y + r.height + dy) - top);
        }
        if (!listed.empty()) profiles(gray, width, height, stride, listed[0].x, listed[0].y, listed[0].width, listed[0].height);
    }
    return 0;
}
