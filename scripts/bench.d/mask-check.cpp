// Does this OpenCV's cascade honour a mask generator (which would let a search skip windows
// inside the whole image)? An all-zero mask must then find nothing. OpenCV 4.6 finds the face
// anyway. Build and run from the repository root:
//   g++ -o /tmp/mask-check scripts/bench.d/mask-check.cpp $(pkg-config --cflags --libs opencv4)
//   /tmp/mask-check .cache/bench/still.jpg
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <cstdio>

struct AllZero : cv::BaseCascadeClassifier::MaskGenerator {
    cv::Mat generateMask(const cv::Mat &image) override { return cv::Mat::zeros(image.size(), CV_8U); }
    void initializeMask(const cv::Mat &) override {}
};

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: mask-check IMAGE\n");
        return 2;
    }
    cv::CascadeClassifier cascade("models/haarcascade_frontalface_default.xml");
    cv::Mat gray = cv::imread(argv[1], cv::IMREAD_GRAYSCALE), small;
    if (cascade.empty() || gray.empty()) {
        std::fprintf(stderr, "mask-check: cannot load the cascade (run from the repository root) or %s\n", argv[1]);
        return 1;
    }
    cv::resize(gray, small, cv::Size(640, gray.rows * 640 / gray.cols), 0, 0, cv::INTER_AREA);
    std::vector<cv::Rect> unmasked, masked;
    cascade.detectMultiScale(small, unmasked, 1.25, 3, 0, cv::Size(30, 30));
    cascade.setMaskGenerator(cv::makePtr<AllZero>());
    cascade.detectMultiScale(small, masked, 1.25, 3, 0, cv::Size(30, 30));
    std::printf("faces without a mask: %zu; with an all-zero mask: %zu (%s)\n", unmasked.size(), masked.size(),
                masked.empty() ? "the mask is honoured" : "the mask is ignored");
    return 0;
}
