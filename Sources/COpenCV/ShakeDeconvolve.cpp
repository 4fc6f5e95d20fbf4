// A straight motion blur (a camera shaken while the shutter was open) found in a place and undone:
// each point of the symbol smeared into a line of some length and direction. Its transfer is a
// sinc across that direction, whose zeros repeat every 1/length: the logarithm of the place's
// spectrum then has ripples of that period, and its inverse transform (the cepstrum) a trough at
// the blur's length and direction. A Gaussian deconvolution cannot undo it: it smears one way
// only, by a module or more.
#include "COpenCV.h"
#include "Deconvolve.hpp"
#include "OpenCVCall.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace {

// `index` wrapped round a plane `size` long: the DFT's plane is periodic.
int wrapped(int index, int size) { return ((index % size) + size) % size; }

// The cepstrum's value at (x, y), bilinear, the plane wrapping round.
float sampled(const cv::Mat &cepstrum, double x, double y) {
    int width = cepstrum.cols, height = cepstrum.rows;
    int x0 = (int)std::floor(x), y0 = (int)std::floor(y);
    double fx = x - x0, fy = y - y0;
    auto at = [&](int column, int row) {
        return cepstrum.at<float>(wrapped(row, height), wrapped(column, width));
    };
    return (float)((at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy);
}

// The transfer of a line `length` long at `angle` (radians), as a DFT of the padded size: the
// line drawn as bilinear dots round the origin (wrapping), normalised to keep the mean light.
cv::Mat lineTransfer(double length, double angle, int width, int height) {
    cv::Mat kernel = cv::Mat::zeros(height, width, CV_32F);
    int dots = std::max(8, (int)std::ceil(length) * 4);
    double total = 0;
    for (int i = 0; i < dots; i++) {
        double t = -length / 2 + length * i / (dots - 1);
        double x = t * std::cos(angle), y = t * std::sin(angle);
        int x0 = (int)std::floor(x), y0 = (int)std::floor(y);
        double fx = x - x0, fy = y - y0;
        const double weights[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
        for (int k = 0; k < 4; k++) {
            int column = wrapped(x0 + (k & 1), width), row = wrapped(y0 + (k >> 1), height);
            kernel.at<float>(row, column) += (float)weights[k];
            total += weights[k];
        }
    }
    kernel /= total;
    cv::Mat transfer;
    cv::dft(kernel, transfer, cv::DFT_COMPLEX_OUTPUT);
    return transfer;
}

}  // namespace

extern "C" int lk_shake_estimate(const unsigned char *gray, int width, int height, int stride, double *length, double *angle) {
    OpenCVCall call;
    if (!gray || width < 16 || height < 16 || stride < width || !length || !angle) return -1;
    try {
        cv::Mat source(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride), place, window, padded;
        source.convertTo(place, CV_32F);
        place -= cv::mean(place)[0];
        // A window, so that the place's edges do not stand for lines across the whole spectrum;
        // then zeros to a size the DFT is fast at (quefrencies stay in pixels).
        cv::createHanningWindow(window, place.size(), CV_32F);
        place = place.mul(window);
        cv::copyMakeBorder(place, padded, 0, cv::getOptimalDFTSize(height) - height, 0, cv::getOptimalDFTSize(width) - width,
                           cv::BORDER_CONSTANT, cv::Scalar(0));
        cv::Mat spectrum, magnitude, planes[2];
        cv::dft(padded, spectrum, cv::DFT_COMPLEX_OUTPUT);
        cv::split(spectrum, planes);
        cv::magnitude(planes[0], planes[1], magnitude);
        double peak;
        cv::minMaxLoc(magnitude, nullptr, &peak);
        // A floor under the logarithm: the sinc's zeros are deep, and noise must not decide them.
        magnitude += (float)(1e-3 * peak + 1e-6);
        cv::log(magnitude, magnitude);
        // A real one-channel input to an inverse DFT is read as a packed spectrum: give it as a
        // complex one (the log magnitude is real and even, so its transform is real).
        cv::Mat logSpectrum, cepstrum, zero = cv::Mat::zeros(magnitude.size(), CV_32F);
        cv::merge(std::vector<cv::Mat>{magnitude, zero}, logSpectrum);
        cv::dft(logSpectrum, cepstrum, cv::DFT_INVERSE | cv::DFT_SCALE | cv::DFT_REAL_OUTPUT);
        // Blurs of 3 px and more (a Gaussian ladder handles less), up to a quarter of the place.
        double longest = std::min(16.0, std::min(width, height) / 4.0), best = 0;
        *length = 0, *angle = 0;
        // A symbol's modules are boxes too, whose troughs lie at the module's width along both
        // axes of its grid alike; a shake's lies one way only. The deepest value near right
        // angles (within 6 degrees and a pixel: a grid seen in perspective is not square).
        auto across = [&](double l, double a) {
            float deepest = 0;
            for (double dl = -1; dl <= 1; dl += 0.5) {
                for (int degrees = -6; degrees <= 6; degrees += 3) {
                    double b = a + M_PI / 2 + degrees * M_PI / 180;
                    deepest = std::min(deepest, sampled(cepstrum, (l + dl) * std::cos(b), (l + dl) * std::sin(b)));
                }
            }
            return deepest;
        };
        for (double l = 3; l <= longest; l += 0.5) {
            for (int degrees = 0; degrees < 180; degrees += 3) {
                double a = degrees * M_PI / 180;
                double value = sampled(cepstrum, l * std::cos(a), l * std::sin(a));
                if (value < best && across(l, a) >= 0.5 * value) best = value, *length = l, *angle = a;
            }
        }
        return *length > 0 ? 0 : -1;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int lk_deconvolve_shake(const unsigned char *gray, int width, int height, int stride, double length, double angle,
                                   double noise, unsigned char *out) {
    OpenCVCall call;
    if (!gray || !out || width <= 0 || height <= 0 || stride < width || !(noise > 0) || !std::isfinite(angle)
        || !(length >= 1 && length <= std::min(width, height)))
        return -1;
    try {
        // Wiener: S · conj(H) / (|H|^2 + noise), margins of the blur's length.
        lookout::deconvolved(gray, width, height, stride, (int)std::ceil(length) + 2, [&](cv::Mat &spectrum) {
            cv::Mat transfer = lineTransfer(length, angle, spectrum.cols, spectrum.rows);
            for (int y = 0; y < spectrum.rows; y++) {
                cv::Vec2f *s = spectrum.ptr<cv::Vec2f>(y);
                const cv::Vec2f *h = transfer.ptr<cv::Vec2f>(y);
                for (int x = 0; x < spectrum.cols; x++) {
                    float hr = h[x][0], hi = h[x][1], sr = s[x][0], si = s[x][1];
                    float scale = 1.0f / (hr * hr + hi * hi + (float)noise);
                    s[x] = cv::Vec2f((sr * hr + si * hi) * scale, (si * hr - sr * hi) * scale);
                }
            }
        }, out);
        return 0;
    } catch (const std::exception &) {
        return -1;
    }
}
