// Symbols zxing-cpp finds but cannot decode (see lk_zx_find_undecoded in CZXing.h): the finders
// or bullseye and the format of a matrix symbol, or a PDF417's start and stop patterns and row
// indicators, were read, so the place is the symbol's own, exactly; only Reed-Solomon could not
// restore the data from the modules or codewords sampled. A DataMatrix or QR symbol is decoded again
// here with erasures (SoftMatrix.hpp); the caller reads the other places again in copies of their own.
#include "CZXing.h"
#include "SoftMatrix.hpp"

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

// A DataMatrix or QR symbol zxing-cpp found but could not decode, decoded with erasures and read
// from the picture its corrected codewords make; its corners are the found symbol's. False when
// it was not.
bool read_restored(const unsigned char *gray, int width, int height, int stride, const ZXing::Barcode &barcode,
                   int format, const int *quad, lk_zx_code &code, unsigned char *bytes, int bytes_capacity) {
    ZXing::ImageView modules = barcode.symbol();
    lookout::FoundSymbol symbol;
    symbol.modules = modules.data();
    symbol.stride = modules.rowStride();
    symbol.columns = modules.width();
    symbol.rows = modules.height();
    symbol.inverted = barcode.isInverted();
    for (int i = 0; i < 4; i++) symbol.corners.x[i] = (float)barcode.position()[i].x, symbol.corners.y[i] = (float)barcode.position()[i].y;
    thread_local std::vector<unsigned char> picture;
    int picture_width = 0, picture_height = 0;
    bool restored = format == LK_ZX_DATAMATRIX
        ? lookout::restore_data_matrix(gray, width, height, stride, symbol, picture, picture_width, picture_height)
        : lookout::restore_qr(gray, width, height, stride, symbol, picture, picture_width, picture_height);
    if (!restored) return false;
    const lk_zx_region whole{0, 0, picture_width, picture_height, 1};
    if (lk_zx_read(picture.data(), picture_width, picture_height, picture_width, format, LK_ZX_BINARY, &whole, 1, 0,
                   &code, 1, bytes, bytes_capacity) != 1)
        return false;
    for (int i = 0; i < 4; i++) code.x[i] = quad[2 * i], code.y[i] = quad[2 * i + 1];
    return true;
}

} // namespace

extern "C" int lk_zx_find_undecoded(const unsigned char *gray, int width, int height, int stride, int formats,
                                    int *quads, int *found_formats, int capacity,
                                    lk_zx_code *restored, int restored_capacity, int *restored_count,
                                    unsigned char *bytes, int bytes_capacity) {
    using F = ZXing::BarcodeFormat;
    std::vector<F> chosen;
    if (formats & LK_ZX_QR) chosen.push_back(F::QRCode);
    if (formats & LK_ZX_AZTEC) chosen.push_back(F::Aztec);
    if (formats & LK_ZX_DATAMATRIX) chosen.push_back(F::DataMatrix);
    if (formats & LK_ZX_PDF417) chosen.push_back(F::PDF417);
    if (restored_count) *restored_count = 0;
    if (!gray || !quads || !found_formats || width < 16 || height < 16 || stride < width || chosen.empty() || capacity <= 0)
        return 0;
    try {
        // Matrix symbols read turned as they are: not searched for here. A light symbol on dark
        // ground is searched for, for restoration alone: its copies are read by the inverted
        // reads' means (lk_zx_read). (zxing-cpp's PDF417 search looks both ways up whatever the
        // options; its corners are the symbol's as it reads.)
        ZXing::ReaderOptions options;
        options.setFormats(ZXing::BarcodeFormats(std::move(chosen)))
            .setTryHarder(true)
            .setTryRotate(false)
            .setTryInvert(true)
            .setTryDownscale(true)
            .setReturnErrors(true)
            .setMaxNumberOfSymbols(255);
        ZXing::ImageView image(gray, width, height, ZXing::ImageFormat::Lum, stride);
        int count = 0, restored_codes = 0, used = 0;
        std::vector<int> restored_quads;
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
            for (int k = 0; k < restored_codes && !seen; k++) seen = inside(centre_x, centre_y, &restored_quads[8 * k]);
            if (seen) continue;
            lk_zx_code code = {};
            if ((format == LK_ZX_DATAMATRIX || format == LK_ZX_QR) && restored && restored_count
                && restored_codes < restored_capacity && bytes
                && read_restored(gray, width, height, stride, barcode, format, quad, code, bytes + used, bytes_capacity - used)) {
                code.offset += used;
                used += code.length;
                restored[restored_codes++] = code;
                restored_quads.insert(restored_quads.end(), quad, quad + 8);
                *restored_count = restored_codes;
                continue;
            }
            if (barcode.isInverted()) continue;
            found_formats[count] = format;
            if (++count == capacity) break;
        }
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}
