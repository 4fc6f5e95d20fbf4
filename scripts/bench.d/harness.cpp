// The bare-library harness for scripts/bench: the same work Lookout does per frame, with nothing
// around it. Reads an MJPEG file (concatenated JPEGs), and for every frame: TurboJPEG decode to
// gray; ZBar with QR + EAN-13 (binary mode, cache off, density as given); the Haar frontal cascade
// on a copy shrunk to 640 wide (INTER_AREA, min neighbours 3) every Nth frame. Prints one JSON line.
// With its defaults it does what `lookout run` does by default (P2); with P1's options, what the
// P1 configuration does, so the bench can show what the libraries alone cost there.
//
//   harness CLIP.mjpeg CASCADE.xml [--density N] [--face-every N] [--scale-factor F]
//           [--min-face PX] [--code-resolution full|half] [--face-threads N]
//
//   --scale-factor F        the cascade's scale step (default 1.1)
//   --min-face PX           smallest face in frame pixels (default 30)
//   --code-resolution half  ZBar reads the frame at half size: frames no face analysis is due on
//                           are decoded at half scale (libjpeg's scaled IDCT), the others whole
//                           and halved by area, as Lookout does (default full)
//   --face-threads N        OpenCV's threads for the cascade (default 0: OpenCV's choice; Lookout
//                           uses 1 for rate-limited faces)
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <turbojpeg.h>
#include <zbar.h>

#include <sys/resource.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: harness CLIP.mjpeg CASCADE.xml [--density N] [--face-every N] [--scale-factor F]\n"
                             "               [--min-face PX] [--code-resolution full|half] [--face-threads N]\n");
        return 64;
    }
    int density = 1, face_every = 1, min_face = 30, face_threads = 0;
    double scale_factor = 1.1;
    bool half_codes = false;
    // A whole number of at least `least`, or a number above `above`; false for anything else.
    auto whole = [](const char *text, int least, int &out) {
        char *end = nullptr;
        long value = std::strtol(text, &end, 10);
        if (end == text || *end || value < least || value > 1000000) return false;
        out = (int)value;
        return true;
    };
    auto real = [](const char *text, double above, double &out) {
        char *end = nullptr;
        double value = std::strtod(text, &end);
        if (end == text || *end || !(value > above)) return false;
        out = value;
        return true;
    };
    for (int i = 3; i < argc; i += 2) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : nullptr;
        bool ok = value != nullptr;
        if (!ok) {
        } else if (!std::strcmp(name, "--density")) {
            ok = whole(value, 1, density);
        } else if (!std::strcmp(name, "--face-every")) {
            ok = whole(value, 1, face_every);
        } else if (!std::strcmp(name, "--min-face")) {
            ok = whole(value, 1, min_face);
        } else if (!std::strcmp(name, "--face-threads")) {
            ok = whole(value, 0, face_threads);
        } else if (!std::strcmp(name, "--scale-factor")) {
            ok = real(value, 1, scale_factor);
        } else if (!std::strcmp(name, "--code-resolution")) {
            half_codes = !std::strcmp(value, "half");
            ok = half_codes || !std::strcmp(value, "full");
        } else {
            ok = false;
        }
        if (!ok) {
            std::fprintf(stderr, "harness: bad option %s %s\n", name, value ? value : "(no value)");
            return 64;
        }
    }
    if (face_threads > 0) cv::setNumThreads(face_threads);
    std::ifstream file(argv[1], std::ios::binary);
    std::vector<unsigned char> data((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (data.empty()) {
        std::fprintf(stderr, "harness: cannot read %s\n", argv[1]);
        return 66;
    }
    cv::CascadeClassifier cascade;
    if (!cascade.load(argv[2])) {
        std::fprintf(stderr, "harness: cannot load %s\n", argv[2]);
        return 66;
    }
    tjhandle decoder = tjInitDecompress();
    zbar::zbar_image_scanner_t *scanner = zbar::zbar_image_scanner_create();
    zbar::zbar_image_scanner_set_config(scanner, zbar::ZBAR_NONE, zbar::ZBAR_CFG_ENABLE, 0);
    zbar::zbar_image_scanner_set_config(scanner, zbar::ZBAR_QRCODE, zbar::ZBAR_CFG_ENABLE, 1);
    zbar::zbar_image_scanner_set_config(scanner, zbar::ZBAR_EAN13, zbar::ZBAR_CFG_ENABLE, 1);
    zbar::zbar_image_scanner_set_config(scanner, zbar::ZBAR_QRCODE, zbar::ZBAR_CFG_BINARY, 1);
    zbar::zbar_image_scanner_set_config(scanner, zbar::ZBAR_NONE, zbar::ZBAR_CFG_X_DENSITY, density);
    zbar::zbar_image_scanner_set_config(scanner, zbar::ZBAR_NONE, zbar::ZBAR_CFG_Y_DENSITY, density);
    zbar::zbar_image_scanner_enable_cache(scanner, 0);
    zbar::zbar_image_t *image = zbar::zbar_image_create();
    zbar::zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));

    std::vector<unsigned char> gray;
    cv::Mat scaled, halved;
    std::vector<cv::Rect> faces;
    long frames = 0, qr = 0, ean13 = 0, face_frames = 0, face_analyses = 0;
    double decode_s = 0, zbar_s = 0, face_s = 0;
    double wall0 = now(), cpu0 = cpu_seconds();
    size_t i = 0;
    while (i + 1 < data.size()) {
        // One frame: SOI (FF D8) up to and including EOI (FF D9).
        if (!(data[i] == 0xFF && data[i + 1] == 0xD8)) { i++; continue; }
        size_t end = i + 2;
        while (end + 1 < data.size() && !(data[end] == 0xFF && data[end + 1] == 0xD9)) end++;
        end += 2;
        int width = 0, height = 0, subsampling = 0, colorspace = 0;
        double t0 = now();
        if (tjDecompressHeader3(decoder, &data[i], end - i, &width, &height, &subsampling, &colorspace) != 0) { i = end; continue; }
        bool faces_due = frames % face_every == 0;
        // Half-size codes: a frame not due for faces is decoded at half scale; one due for faces
        // is decoded whole (the cascade wants it) and halved by area for ZBar.
        bool decode_half = half_codes && !faces_due;
        int decoded_width = decode_half ? (width + 1) / 2 : width, decoded_height = decode_half ? (height + 1) / 2 : height;
        gray.resize((size_t)decoded_width * decoded_height);
        if (tjDecompress2(decoder, &data[i], end - i, gray.data(), decoded_width, decoded_width, decoded_height, TJPF_GRAY, 0) != 0) { i = end; continue; }
        cv::Mat frame(decoded_height, decoded_width, CV_8UC1, gray.data());
        double t1 = now();
        const cv::Mat *codes_plane = &frame;
        if (half_codes && !decode_half) {
            cv::resize(frame, halved, cv::Size(width / 2, height / 2), 0, 0, cv::INTER_AREA);
            codes_plane = &halved;
        }
        zbar::zbar_image_scanner_recycle_image(scanner, image);
        zbar::zbar_image_set_size(image, codes_plane->cols, codes_plane->rows);
        zbar::zbar_image_set_data(image, codes_plane->data, codes_plane->total(), nullptr);
        zbar::zbar_scan_image(scanner, image);
        for (const zbar::zbar_symbol_t *s = zbar::zbar_image_first_symbol(image); s; s = zbar::zbar_symbol_next(s)) {
            if (zbar::zbar_symbol_get_type(s) == zbar::ZBAR_QRCODE) qr++;
            if (zbar::zbar_symbol_get_type(s) == zbar::ZBAR_EAN13) ean13++;
        }
        double t2 = now();
        if (faces_due) {
            double scale = width > 640 ? (double)width / 640 : 1.0;
            const cv::Mat *input = &frame;
            if (scale > 1.0) {
                cv::Size size(640, (int)(height / scale + 0.5));
                // At 1280x720 the half-size plane for codes is this copy already.
                if (codes_plane == &halved && halved.size() == size) {
                    input = &halved;
                } else {
                    cv::resize(frame, scaled, size, 0, 0, cv::INTER_AREA);
                    input = &scaled;
                }
            }
            int min_size = (int)(min_face / scale + 0.5);
            faces.clear();
            cascade.detectMultiScale(*input, faces, scale_factor, 3, 0, cv::Size(min_size, min_size));
            if (!faces.empty()) face_frames++;
            face_analyses++;
        }
        double t3 = now();
        decode_s += t1 - t0;
        zbar_s += t2 - t1;
        face_s += t3 - t2;
        frames++;
        i = end;
    }
    double wall = now() - wall0, cpu = cpu_seconds() - cpu0;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("{\"frames\":%ld,\"wall_s\":%.3f,\"cpu_s\":%.3f,\"fps\":%.2f,\"cpu_ms_per_frame\":%.2f,"
                "\"decode_ms\":%.2f,\"zbar_ms\":%.2f,\"face_ms\":%.2f,\"face_analyses\":%ld,"
                "\"qr\":%ld,\"ean13\":%ld,\"face_frames\":%ld,\"max_rss_mb\":%.1f}\n",
                frames, wall, cpu, frames / wall, cpu * 1000 / frames, decode_s * 1000 / frames, zbar_s * 1000 / frames,
                face_analyses ? face_s * 1000 / face_analyses : 0.0, face_analyses, qr, ean13, face_frames,
                usage.ru_maxrss / 1024.0);
    zbar::zbar_image_destroy(image);
    zbar::zbar_image_scanner_destroy(scanner);
    tjDestroy(decoder);
    return 0;
}
