// Symbols zxing-cpp finds but cannot decode (see lk_zx_find_undecoded in CZXing.h): the finders
// or bullseye and the format of a matrix symbol, or a PDF417's start and stop patterns and row
// indicators, were read, so the place is the symbol's own, exactly; only Reed-Solomon could not
// restore the data from the modules or codewords sampled. The caller reads that place again in a
// copy of its own.
#include "CZXing.h"

#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <exception>
#include <vector>

namespace {

// The LK_ZX_ bit of a symbol not decoded, or 0 for Micro QR, rMQR and an Aztec rune, whose
// undecoded finds were parts of larger symbols or of none (measured), and for MicroPDF417, which
// was not measured (the PDF417 family searched includes its reader). A symbol not decoded is
// named by its family (QR Code, Aztec), or a variant.
int full_size_format(ZXing::BarcodeFormat format) {
    char variant = ZXing::VariantKey(format);
    switch (ZXing::SymbologyKey(format)) {
    case 'Q': return variant != 'm' && variant != 'r' ? LK_ZX_QR : 0;
    case 'z': return variant != 'r' ? LK_ZX_AZTEC : 0;
    case 'd': return LK_ZX_DATAMATRIX;
    case 'L': return variant != 'm' ? LK_ZX_PDF417 : 0;
    default: return 0;
    }
}

// Whether a quad (four corners, x and y each) is strictly convex, turning one way all round: a
// failed PDF417 that had only its start or only its stop pattern comes back with the other side's
// corners at a default point (an image corner), which is no place to read or to set aside.
bool convex(const int *quad) {
    int sign = 0;
    for (int i = 0; i < 4; i++) {
        const int *a = quad + 2 * i, *b = quad + 2 * ((i + 1) % 4), *c = quad + 2 * ((i + 2) % 4);
        long long cross = ((long long)b[0] - a[0]) * ((long long)c[1] - b[1]) - ((long long)b[1] - a[1]) * ((long long)c[0] - b[0]);
        int turn = cross > 0 ? 1 : cross < 0 ? -1 : 0;
        if (turn == 0 || (sign != 0 && turn != sign)) return false;
        sign = turn;
    }
    return true;
}

bool inside(float x, float y, const int *quad) {
    int left = std::min({quad[0], quad[2], quad[4], quad[6]}), right = std::max({quad[0], quad[2], quad[4], quad[6]});
    int top = std::min({quad[1], quad[3], quad[5], quad[7]}), bottom = std::max({quad[1], quad[3], quad[5], quad[7]});
    return x >= left && x <= right && y >= top && y <= bottom;
}

} // namespace

extern "C" int lk_zx_find_undecoded(const unsigned char *gray, int width, int height, int stride, int formats,
                                    int *quads, int *found_formats, int capacity) {
    using F = ZXing::BarcodeFormat;
    std::vector<F> chosen;
    if (formats & LK_ZX_QR) chosen.push_back(F::QRCode);
    if (formats & LK_ZX_AZTEC) chosen.push_back(F::Aztec);
    if (formats & LK_ZX_DATAMATRIX) chosen.push_back(F::DataMatrix);
    if (formats & LK_ZX_PDF417) chosen.push_back(F::PDF417);
    if (!gray || !quads || !found_formats || width < 16 || height < 16 || stride < width || chosen.empty() || capacity <= 0)
        return 0;
    try {
        // Matrix symbols read turned as they are, and a light symbol on dark ground is the
        // inverted reads' (lk_zx_read): neither is searched for here, a third of the time.
        // (zxing-cpp's PDF417 search looks both ways up whatever the options; its corners are
        // the symbol's as it reads.)
        ZXing::ReaderOptions options;
        options.setFormats(ZXing::BarcodeFormats(std::move(chosen)))
            .setTryHarder(true)
            .setTryRotate(false)
            .setTryInvert(false)
            .setTryDownscale(true)
            .setReturnErrors(true)
            .setMaxNumberOfSymbols(255);
        ZXing::ImageView image(gray, width, height, ZXing::ImageFormat::Lum, stride);
        int count = 0;
        for (const auto &barcode : ZXing::ReadBarcodes(image, options)) {
            int format = full_size_format(barcode.format());
            if (barcode.isValid() || barcode.error().type() != ZXing::Error::Checksum || format == 0) continue;
            const auto &position = barcode.position();
            // The corners within the image, then convex: clamping can put three in a line.
            int *quad = quads + 8 * count;
            for (int i = 0; i < 4; i++) {
                quad[2 * i] = std::clamp(position[i].x, 0, width - 1);
                quad[2 * i + 1] = std::clamp(position[i].y, 0, height - 1);
            }
            if (!convex(quad)) continue;
            float centre_x = 0, centre_y = 0;
            for (int i = 0; i < 4; i++) centre_x += quad[2 * i] / 4.0f, centre_y += quad[2 * i + 1] / 4.0f;
            // One place a symbol, however many ways it was found.
            bool seen = false;
            for (int k = 0; k < count && !seen; k++) seen = inside(centre_x, centre_y, quads + 8 * k);
            if (seen) continue;
            found_formats[count] = format;
            if (++count == capacity) break;
        }
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}
