// The bare-library harness for scripts/bench (P2): the same work Lookout does per frame, with
// nothing around it. Reads an MJPEG file (concatenated JPEGs), and for every frame: TurboJPEG
// decode to gray; ZBar with QR + EAN-13 on the full frame (binary mode, cache off, density as
// given); the Haar frontal cascade on a copy shrunk to 640 wide (INTER_AREA, scale 1.1,
// min neighbours 3, min size 30 frame pixels) every Nth frame. Prints one JSON line.
//
//   harness CLIP.mjpeg CASCADE.xml [--density N] [--face-every N]
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
        std::fprintf(stderr, "usage: harness CLIP.mjpeg CASCADE.xml [--density N] [--face-every N]\n");
        return 64;
    }
    int density = 1, face_every = 1;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--density")) density = std::atoi(argv[i + 1]);
        if (!std::strcmp(argv[i], "--face-every")) face_every = std::atoi(argv[i + 1]);
    }
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
    cv::Mat scaled;
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
        gray.resize((size_t)width * height);
        if (tjDecompress2(decoder, &data[i], end - i, gray.data(), width, width, height, TJPF_GRAY, 0) != 0) { i = end; continue; }
        double t1 = now();
        zbar::zbar_image_scanner_recycle_image(scanner, image);
        zbar::zbar_image_set_size(image, width, height);
        zbar::zbar_image_set_data(image, gray.data(), gray.size(), nullptr);
        zbar::zbar_scan_image(scanner, image);
        for (const zbar::zbar_symbol_t *s = zbar::zbar_image_first_symbol(image); s; s = zbar::zbar_symbol_next(s)) {
            if (zbar::zbar_symbol_get_type(s) == zbar::ZBAR_QRCODE) qr++;
            if (zbar::zbar_symbol_get_type(s) == zbar::ZBAR_EAN13) ean13++;
        }
        double t2 = now();
        if (frames % face_every == 0) {
            cv::Mat frame(height, width, CV_8UC1, gray.data());
            double scale = width > 640 ? (double)width / 640 : 1.0;
            const cv::Mat *input = &frame;
            if (scale > 1.0) {
                cv::resize(frame, scaled, cv::Size(640, (int)(height / scale + 0.5)), 0, 0, cv::INTER_AREA);
                input = &scaled;
            }
            int min_size = (int)(30 / scale + 0.5);
            faces.clear();
            cascade.detectMultiScale(*input, faces, 1.1, 3, 0, cv::Size(min_size, min_size));
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
