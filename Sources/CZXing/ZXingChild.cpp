// The read and the result protocol shared by the forked reader and the worker (ZXingChild.hpp).
#include "ZXingChild.hpp"
#include "CPlanes.h"

// text() in UTF-8 (zxing-cpp 1.4 otherwise gives a std::wstring).
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <exception>
#include <fcntl.h>
#include <iconv.h>
#include <mutex>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace lookout_zxing {

// Opened in the parent (prepare_converters), used in children.
static iconv_t latin1_to_utf8 = (iconv_t)-1, cp932_to_utf8 = (iconv_t)-1, utf8_to_cp932 = (iconv_t)-1;

void prepare_converters() {
    static std::once_flag once;
    std::call_once(once, [] {
        latin1_to_utf8 = iconv_open("UTF-8", "ISO-8859-1");
        cp932_to_utf8 = iconv_open("UTF-8", "CP932");
        utf8_to_cp932 = iconv_open("CP932", "UTF-8");
    });
}

// `input` converted with `cd` (opened before the fork); false when it does not convert.
static bool converted(const std::string &input, iconv_t cd, std::string &output) {
    if (cd == (iconv_t)-1) return false;
    iconv(cd, nullptr, nullptr, nullptr, nullptr); // back to the initial state
    output.assign(input.size() * 4 + 16, '\0');
    char *in = const_cast<char *>(input.data()), *out = &output[0];
    size_t in_left = input.size(), out_left = output.size();
    bool ok = iconv(cd, &in, &in_left, &out, &out_left) != (size_t)-1 && in_left == 0;
    output.resize(output.size() - out_left);
    return ok;
}

// The symbol's own bytes for a QR code whose text zxing-cpp 1.4 did not make from bytes() in one
// charset (UTF-8, ISO-8859-1 or Shift-JIS): it keeps a Kanji-mode segment's characters there in
// another form (JIS X 0208 as EUC, "阿" as B0 A2), which read as Shift-JIS gives other characters
// (half-width katakana). A Kanji segment's bytes are Shift-JIS, so its text in Shift-JIS (code page
// 932) is what the symbol holds. False when bytes() are the text's own.
static bool kanji_segment_bytes(const ZXing::Result &result, std::string &bytes) {
    const std::string text = result.text();
    const std::string raw(result.bytes().begin(), result.bytes().end());
    std::string read;
    if (raw == text) return false;
    if (converted(raw, latin1_to_utf8, read) && read == text) return false;
    if (converted(raw, cp932_to_utf8, read) && read == text) return false;
    return !text.empty() && converted(text, utf8_to_cp932, bytes);
}

long long now_ms() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000LL + now.tv_nsec / 1000000;
}

// A region shrunk by 2x2 averaging into `half` (for large symbols: a quarter of the work), with
// the frames' own halving (plain code: safe in a forked child, unlike OpenCV's thread pool).
static ZXing::ImageView shrunk(const unsigned char *origin, int width, int height, int stride, std::vector<unsigned char> &half) {
    int w = width / 2, h = height / 2;
    half.resize((size_t)w * h);
    lk_half_scale(origin, width, height, stride, half.data());
    return ZXing::ImageView(half.data(), w, h, ZXing::ImageFormat::Lum, w);
}

// A region enlarged 2x by bilinear interpolation into `grown` (small, slightly blurred symbols:
// zxing-cpp 1.4 reads an Aztec symbol of 3-4 px modules turned by a few degrees only so).
static ZXing::ImageView grown(const unsigned char *origin, int width, int height, int stride, std::vector<unsigned char> &big) {
    int w = width * 2, h = height * 2;
    big.resize((size_t)w * h);
    for (int y = 0; y < h; y++) {
        int y0 = y / 2, y1 = std::min(height - 1, y0 + (y & 1));
        const unsigned char *a = origin + (size_t)y0 * stride, *b = origin + (size_t)y1 * stride;
        unsigned char *to = big.data() + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            int x0 = x / 2, x1 = std::min(width - 1, x0 + (x & 1));
            to[x] = (unsigned char)((a[x0] + a[x1] + b[x0] + b[x1] + 2) / 4);
        }
    }
    return ZXing::ImageView(big.data(), w, h, ZXing::ImageFormat::Lum, w);
}

int read_codes(const unsigned char *gray, int width, int height, int stride, int formats,
               const lk_zx_region *regions, int region_count, long long deadline_ms,
               lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity) {
    try {
        ZXing::DecodeHints hints;
        hints.setFormats(ZXing::BarcodeFormats(static_cast<ZXing::BarcodeFormat>(formats)));
        hints.setTryHarder(true);
        hints.setTryRotate(true);
        hints.setTryDownscale(true);
        // Kept from read to read: the worker reads every frame, and it has one thread.
        static std::vector<unsigned char> half;
        int count = 0, used = 0;
        for (int r = 0; r < region_count && count < capacity; r++) {
            if (r > 0 && deadline_ms > 0 && now_ms() >= deadline_ms) break;
            lk_zx_region region = regions[r];
            region.x = std::max(0, std::min(region.x, width));
            region.y = std::max(0, std::min(region.y, height));
            region.width = std::min(region.width, width - region.x);
            region.height = std::min(region.height, height - region.y);
            // Image pixels per read pixel: 2 shrunk, 0.5 grown.
            float scale = region.shrink == 2 ? 2.0f : region.shrink == -2 ? 0.5f : 1.0f;
            if (region.width < 16 || region.height < 16) continue;
            const unsigned char *origin = gray + (size_t)region.y * stride + region.x;
            ZXing::ImageView image = region.shrink == 2 ? shrunk(origin, region.width, region.height, stride, half)
                : region.shrink == -2 ? grown(origin, region.width, region.height, stride, half)
                : ZXing::ImageView(origin, region.width, region.height, ZXing::ImageFormat::Lum, stride);
            for (const auto &result : ZXing::ReadBarcodes(image, hints)) {
                if (!result.isValid() || count >= capacity) continue;
                std::string text;
                const unsigned char *payload;
                size_t length;
                if (result.hasECI()) { // ZBar applies the designator too: the text, in UTF-8
                    text = result.text();
                    // zxing-cpp 1.4 gives no text for ECIs it cannot join (mixed ECIs): nothing
                    // rather than a wrong text.
                    if (text.empty() && !result.bytes().empty()) continue;
                    payload = reinterpret_cast<const unsigned char *>(text.data());
                    length = text.size();
                } else if (result.format() == ZXing::BarcodeFormat::QRCode && kanji_segment_bytes(result, text)) {
                    payload = reinterpret_cast<const unsigned char *>(text.data());
                    length = text.size();
                } else {
                    payload = result.bytes().data();
                    length = result.bytes().size();
                }
                if ((int)length > bytes_capacity - used) continue;
                int format = static_cast<int>(result.format());
                bool seen = std::any_of(out, out + count, [&](const lk_zx_code &code) {
                    return code.format == format && code.length == (int)length && std::memcmp(bytes + code.offset, payload, length) == 0;
                });
                if (seen) continue;
                std::memcpy(bytes + used, payload, length);
                lk_zx_code &code = out[count++];
                code.format = format;
                code.offset = used;
                code.length = (int)length;
                used += (int)length;
                const auto &position = result.position();
                for (int i = 0; i < 4; i++) {
                    code.x[i] = region.x + (int)(position[i].x * scale);
                    code.y[i] = region.y + (int)(position[i].y * scale);
                }
            }
        }
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}

void quiet_child() {
    for (int signal_number : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE}) std::signal(signal_number, SIG_DFL);
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd >= 0) {
        dup2(null_fd, STDERR_FILENO);
        close(null_fd);
    }
}

bool write_all(int fd, const void *data, size_t length) {
    struct stat info;
    bool socket = fstat(fd, &info) == 0 && S_ISSOCK(info.st_mode);
    const char *p = static_cast<const char *>(data);
    while (length > 0) {
        ssize_t n = socket ? send(fd, p, length, MSG_NOSIGNAL) : write(fd, p, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        length -= (size_t)n;
    }
    return true;
}

long read_until(int fd, void *data, size_t length, long long deadline_ms) {
    char *p = static_cast<char *>(data);
    size_t got = 0;
    while (got < length) {
        long long left = deadline_ms > 0 ? deadline_ms - now_ms() : 1000;
        if (left <= 0) return -1;
        struct pollfd pfd = {fd, POLLIN, 0};
        int ready = poll(&pfd, 1, (int)std::min(left, 1000LL));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return (long)got;
        if (ready == 0) continue;
        ssize_t n = read(fd, p + got, length - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    return (long)got;
}

bool send_results(int fd, int count, const lk_zx_code *codes, const unsigned char *bytes) {
    int used = 0;
    for (int i = 0; i < count; i++) used = std::max(used, codes[i].offset + codes[i].length);
    return write_all(fd, &count, sizeof count)
        && (count <= 0 || (write_all(fd, codes, sizeof(lk_zx_code) * count) && write_all(fd, &used, sizeof used)
                           && write_all(fd, bytes, (size_t)used)));
}

int receive_results(int fd, long long deadline_ms, lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity) {
    int count = -2;
    long got = read_until(fd, &count, sizeof count, deadline_ms);
    if (got == -1) return -3;
    if (got != (long)sizeof count || count < -1 || count > capacity) return -2;
    if (count <= 0) return count < 0 ? -2 : 0;
    long codes = read_until(fd, out, sizeof(lk_zx_code) * count, deadline_ms);
    if (codes == -1) return -3;
    int used = 0;
    long header = codes == (long)(sizeof(lk_zx_code) * count) ? read_until(fd, &used, sizeof used, deadline_ms) : 0;
    if (header == -1) return -3;
    if (header != (long)sizeof used || used < 0 || used > bytes_capacity) return -2;
    long payload = read_until(fd, bytes, (size_t)used, deadline_ms);
    if (payload == -1) return -3;
    if (payload != used) return -2;
    for (int i = 0; i < count; i++) {
        if (out[i].offset < 0 || out[i].length < 0 || out[i].offset + out[i].length > used) return -2;
    }
    return count;
}

} // namespace lookout_zxing
