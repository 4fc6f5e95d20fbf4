// zxing-cpp 3 in process (see CZXing.h). Release builds of it have no assertions (NDEBUG), and
// scripts/fuzz runs this entry point under libFuzzer with AddressSanitizer (docs/accuracy.md):
// the helper process Debian's 1.4 needed is gone.
#include "CZXing.h"
#include "CPlanes.h"
#include "Rectify.hpp"
#include "Upright.hpp"

#include <ZXing/ReadBarcode.h>
#include <ZXing/Version.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <iconv.h>
#include <string>
#include <vector>

namespace {

long long now_ms() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000LL + now.tv_nsec / 1000000;
}

ZXing::BarcodeFormats formats_of(int bits) {
    using F = ZXing::BarcodeFormat;
    const std::pair<int, F> table[] = {
        {LK_ZX_AZTEC, F::Aztec}, {LK_ZX_CODABAR, F::Codabar}, {LK_ZX_CODE39, F::Code39}, {LK_ZX_CODE93, F::Code93},
        {LK_ZX_CODE128, F::Code128}, {LK_ZX_DATABAR, F::DataBar}, {LK_ZX_DATABAR_EXPANDED, F::DataBarExp},
        {LK_ZX_DATAMATRIX, F::DataMatrix}, {LK_ZX_EAN8, F::EAN8}, {LK_ZX_EAN13, F::EAN13}, {LK_ZX_ITF, F::ITF},
        {LK_ZX_PDF417, F::PDF417}, {LK_ZX_QR, F::QRCode}, {LK_ZX_UPCA, F::UPCA}, {LK_ZX_UPCE, F::UPCE},
    };
    std::vector<F> chosen;
    for (const auto &[bit, format] : table) if (bits & bit) chosen.push_back(format);
    return ZXing::BarcodeFormats(std::move(chosen));
}

// The LK_ZX_ bit of a format zxing-cpp returned (a variant: Micro QR is QR, ISBN is EAN-13); 0
// for one Lookout does not name.
int bit_of(ZXing::BarcodeFormat format) {
    char variant = ZXing::VariantKey(format);
    switch (ZXing::SymbologyKey(format)) {
    case 'Q': return LK_ZX_QR;
    case 'z': return LK_ZX_AZTEC;
    case 'd': return LK_ZX_DATAMATRIX;
    case 'L': return LK_ZX_PDF417;
    case 'F': return LK_ZX_CODABAR;
    case 'A': return LK_ZX_CODE39;
    case 'G': return LK_ZX_CODE93;
    case 'C': return LK_ZX_CODE128;
    case 'I': return LK_ZX_ITF;
    case 'e': return variant == 'e' || variant == 'E' ? LK_ZX_DATABAR_EXPANDED : LK_ZX_DATABAR;
    case 'E':
        switch (variant) {
        case '8': return LK_ZX_EAN8;
        case 'a': return LK_ZX_UPCA;
        case 'e': return LK_ZX_UPCE;
        case '1': case 'i': return LK_ZX_EAN13;
        default: return 0;
        }
    default: return 0;
    }
}

// Converters for the Kanji check below, opened once per thread (iconv_t is not shared).
struct Converters {
    iconv_t latin1_to_utf8 = iconv_open("UTF-8", "ISO-8859-1");
    iconv_t cp932_to_utf8 = iconv_open("UTF-8", "CP932");
    iconv_t utf8_to_cp932 = iconv_open("CP932", "UTF-8");
    ~Converters() {
        for (iconv_t cd : {latin1_to_utf8, cp932_to_utf8, utf8_to_cp932}) if (cd != (iconv_t)-1) iconv_close(cd);
    }
};

bool converted(const std::string &input, iconv_t cd, std::string &output) {
    if (cd == (iconv_t)-1) return false;
    iconv(cd, nullptr, nullptr, nullptr, nullptr);
    output.assign(input.size() * 4 + 16, '\0');
    char *in = const_cast<char *>(input.data()), *out = &output[0];
    size_t in_left = input.size(), out_left = output.size();
    bool ok = iconv(cd, &in, &in_left, &out, &out_left) != (size_t)-1 && in_left == 0;
    output.resize(output.size() - out_left);
    return ok;
}

// The symbol's own bytes for a QR code whose bytes() are not its text in one charset (UTF-8,
// ISO-8859-1 or Shift-JIS): a Kanji-mode segment is Shift-JIS in the symbol, so its text in code
// page 932 is what the symbol holds. False when bytes() are the text's own.
bool kanji_segment_bytes(const ZXing::Barcode &barcode, std::string &bytes) {
    thread_local Converters converters;
    const std::string text = barcode.text(ZXing::TextMode::Plain);
    const std::string raw(barcode.bytes().begin(), barcode.bytes().end());
    std::string read;
    if (raw == text) return false;
    if (converted(raw, converters.latin1_to_utf8, read) && read == text) return false;
    if (converted(raw, converters.cp932_to_utf8, read) && read == text) return false;
    return !text.empty() && converted(text, converters.utf8_to_cp932, bytes);
}

ZXing::ImageView shrunk(const unsigned char *origin, int width, int height, int stride, std::vector<unsigned char> &half) {
    int w = width / 2, h = height / 2;
    half.resize((size_t)w * h);
    lk_half_scale(origin, width, height, stride, half.data());
    return ZXing::ImageView(half.data(), w, h, ZXing::ImageFormat::Lum, w);
}

ZXing::ImageView grown(const unsigned char *origin, int width, int height, int stride, std::vector<unsigned char> &big) {
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

bool inside(const lk_zx_code &code, int x, int y) {
    int left = *std::min_element(code.x, code.x + 4), right = *std::max_element(code.x, code.x + 4);
    int top = *std::min_element(code.y, code.y + 4), bottom = *std::max_element(code.y, code.y + 4);
    return x >= left && x <= right && y >= top && y <= bottom;
}

// Whether a read stands: a PDF417 read that used all of its error correction may be a
// miscorrection. Under glare zxing-cpp erases the codewords it cannot read and tries up to 100
// guesses for ambiguous ones, and one can decode to other bytes (a glared ticket, upright, read as
// 40 wrong characters: scripts/corpus.d/leaning_pdf417.py --upright --seed 14, `leaning037`). Such
// a read stands only when another view of it gives the same bytes: `view` with the other
// threshold, then (up to 4 Mpx) enlarged twice and halved, with either threshold. A view moves
// the doubtful codewords, which a true read survives in one of them and a miscorrection in none
// (an over-exposed symbol, `code-bench/pdf417/002`, is vouched for halved only).
bool stands(const ZXing::Barcode &barcode, const ZXing::ImageView &view, ZXing::ReaderOptions options) {
    std::string spare = barcode.extra(ZXing::BarcodeExtra::UEC);
    if (bit_of(barcode.format()) != LK_ZX_PDF417 || spare.empty() || std::strtod(spare.c_str(), nullptr) > 0) return true;
    auto again = [&](const ZXing::ImageView &other, ZXing::Binarizer binarizer) {
        options.setFormats(barcode.format()).setBinarizer(binarizer);
        auto reads = ZXing::ReadBarcodes(other, options);
        return std::any_of(reads.begin(), reads.end(), [&](const ZXing::Barcode &read) {
            return read.isValid() && read.bytes() == barcode.bytes();
        });
    };
    const auto local = ZXing::Binarizer::LocalAverage, global = ZXing::Binarizer::GlobalHistogram;
    if (again(view, options.binarizer() == global ? local : global)) return true;
    if ((size_t)view.width() * view.height() > 4000000) return false;
    std::vector<unsigned char> copy;
    ZXing::ImageView twice = grown(view.data(), view.width(), view.height(), view.rowStride(), copy);
    if (again(twice, local) || again(twice, global)) return true;
    ZXing::ImageView half = shrunk(view.data(), view.width(), view.height(), view.rowStride(), copy);
    return again(half, local) || again(half, global);
}

} // namespace

extern "C" int lk_zx_read(const unsigned char *gray, int width, int height, int stride, int formats, int flags,
                          const lk_zx_region *regions, int region_count, int budget_ms,
                          lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity) {
    if (!gray || width <= 0 || height <= 0 || stride < width || formats == 0 || capacity <= 0) return 0;
    try {
        ZXing::ReaderOptions options;
        options.setFormats(formats_of(formats))
            .setTryHarder(flags & LK_ZX_TRY_HARDER)
            .setTryRotate(flags & LK_ZX_TRY_ROTATE)
            .setTryInvert(flags & LK_ZX_TRY_INVERT)
            .setTryDownscale(flags & LK_ZX_TRY_DOWNSCALE)
            .setBinarizer(flags & LK_ZX_BINARY ? ZXing::Binarizer::BoolCast
                          : flags & LK_ZX_GLOBAL_THRESHOLD ? ZXing::Binarizer::GlobalHistogram : ZXing::Binarizer::LocalAverage)
            // The bytes are what Lookout reports; text only for ECI (below), in plain Unicode.
            .setTextMode(ZXing::TextMode::Plain)
            .setMaxNumberOfSymbols(255);
        thread_local std::vector<unsigned char> scratch;
        long long deadline = budget_ms > 0 ? now_ms() + budget_ms : 0;
        int count = 0, used = 0;
        // Adds the valid codes `view` reads that were not read before (and that stand), corners
        // mapped into the image by `place`.
        auto take = [&](const ZXing::ImageView &view, auto &&place) {
            for (const auto &barcode : ZXing::ReadBarcodes(view, options)) {
                int format = bit_of(barcode.format());
                if (!barcode.isValid() || format == 0 || count >= capacity || !stands(barcode, view, options)) continue;
                std::string text;
                const unsigned char *payload;
                size_t length;
                if (barcode.hasECI()) { // ZBar applies the designator too: the text, in UTF-8
                    text = barcode.text(ZXing::TextMode::Plain);
                    if (text.empty() && !barcode.bytes().empty()) continue; // nothing rather than a wrong text
                    payload = reinterpret_cast<const unsigned char *>(text.data());
                    length = text.size();
                } else if (format == LK_ZX_QR && kanji_segment_bytes(barcode, text)) {
                    payload = reinterpret_cast<const unsigned char *>(text.data());
                    length = text.size();
                } else {
                    payload = barcode.bytes().data();
                    length = barcode.bytes().size();
                }
                if ((int)length > bytes_capacity - used) continue;
                lk_zx_code code = {};
                code.format = format;
                const auto &position = barcode.position();
                for (int i = 0; i < 4; i++) place((float)position[i].x, (float)position[i].y, code.x[i], code.y[i]);
                int centre_x = (code.x[0] + code.x[1] + code.x[2] + code.x[3]) / 4;
                int centre_y = (code.y[0] + code.y[1] + code.y[2] + code.y[3]) / 4;
                bool seen = std::any_of(out, out + count, [&](const lk_zx_code &other) {
                    return other.format == format && other.length == (int)length
                        && std::memcmp(bytes + other.offset, payload, length) == 0 && inside(other, centre_x, centre_y);
                });
                if (seen) continue;
                std::memcpy(bytes + used, payload, length);
                code.offset = used;
                code.length = (int)length;
                used += (int)length;
                std::string aim = barcode.symbologyIdentifier();
                std::strncpy(code.aim, aim.c_str(), sizeof code.aim - 1);
                out[count++] = code;
            }
        };
        for (int r = 0; r < region_count && count < capacity; r++) {
            if (r > 0 && deadline > 0 && now_ms() >= deadline) break;
            lk_zx_region region = regions[r];
            region.x = std::max(0, std::min(region.x, width));
            region.y = std::max(0, std::min(region.y, height));
            region.width = std::min(region.width, width - region.x);
            region.height = std::min(region.height, height - region.y);
            if (region.width < 16 || region.height < 16) continue;
            // Image pixels per read pixel: 2 shrunk, 0.5 grown.
            float scale = region.shrink == 2 ? 2.0f : region.shrink == -2 ? 0.5f : 1.0f;
            const unsigned char *origin = gray + (size_t)region.y * stride + region.x;
            ZXing::ImageView image = region.shrink == 2 ? shrunk(origin, region.width, region.height, stride, scratch)
                : region.shrink == -2 ? grown(origin, region.width, region.height, stride, scratch)
                : ZXing::ImageView(origin, region.width, region.height, ZXing::ImageFormat::Lum, stride);
            int before = count;
            // Corners of a copy's read, back into the image through the copy's `source`.
            auto through = [&region](const auto &copy) {
                return [&region, &copy](float x, float y, int &ix, int &iy) {
                    float sx, sy;
                    copy.source(x, y, sx, sy);
                    ix = region.x + (int)std::lround(sx);
                    iy = region.y + (int)std::lround(sy);
                };
            };
            take(image, [&](float x, float y, int &ix, int &iy) {
                ix = region.x + (int)(x * scale);
                iy = region.y + (int)(y * scale);
            });
            // A region that gave nothing, read again turned upright by its edges' lean (PDF417
            // rows at an angle); a lean of a few degrees zxing-cpp reads as it is.
            if ((flags & LK_ZX_TRY_TURN) && count == before && region.shrink == 1) {
                float lean = lookout::edge_lean(origin, region.width, region.height, stride);
                if (std::fabs(lean) >= 3) {
                    lookout::Upright turned = lookout::turn_upright(origin, region.width, region.height, stride, lean, scratch);
                    ZXing::ImageView upright(scratch.data(), turned.width, turned.height, ZXing::ImageFormat::Lum, turned.width);
                    take(upright, through(turned));
                }
            }
            // Still nothing: the symbol stood square, first as the rectangle round its outline at
            // its angle, then as the corners perspective left it, with fine and coarse cells.
            if ((flags & LK_ZX_TRY_RECTIFY) && count == before && region.shrink == 1) {
                for (int cell : {4, 8}) {
                    lookout::Quad rectangle, corners;
                    if (count > before) break;
                    if (!lookout::symbol_outline(origin, region.width, region.height, stride, cell, rectangle, corners)) continue;
                    for (const lookout::Quad *quad : {&rectangle, &corners}) {
                        lookout::Rectified square;
                        if (count > before || !lookout::rectify(origin, region.width, region.height, stride, *quad, 0.1f,
                                                                 4 * region.width * region.height, scratch, square)) continue;
                        ZXing::ImageView view(scratch.data(), square.width, square.height, ZXing::ImageFormat::Lum, square.width);
                        take(view, through(square));
                    }
                }
            }
        }
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" const char *lk_zx_version(void) { return ZXING_VERSION_STR; }
