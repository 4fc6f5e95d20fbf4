// Pictures for people (snapshots, the web view): raw camera layouts to RGB, outlines and labels
// drawn on them, and resizing. Only ever called for frames someone asked to see.
#include "COpenCV.h"
#include "OpenCVCall.hpp"

#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <string>

extern "C" int lk_raw_to_rgb(int layout, const unsigned char *data, size_t length, int width, int height, int stride,
                             unsigned char *rgb) {
    OpenCVCall call;
    cv::Mat out(height, width, CV_8UC3, rgb);
    const size_t luma = (size_t)stride * height;
    auto need = [&](size_t bytes) { return length >= bytes; };
    unsigned char *source = const_cast<unsigned char *>(data);
    try {
        switch (layout) {
        case LK_RAW_GRAY:
            if (!need(luma)) return -1;
            cv::cvtColor(cv::Mat(height, width, CV_8UC1, source, stride), out, cv::COLOR_GRAY2RGB);
            return 0;
        case LK_RAW_YUYV:
        case LK_RAW_UYVY:
            if (!need(luma)) return -1;
            cv::cvtColor(cv::Mat(height, width, CV_8UC2, source, stride), out,
                         layout == LK_RAW_YUYV ? cv::COLOR_YUV2RGB_YUYV : cv::COLOR_YUV2RGB_UYVY);
            return 0;
        case LK_RAW_NV12:
        case LK_RAW_NV21:
        case LK_RAW_I420: {
            const int chroma_rows = (height + 1) / 2;
            const size_t chroma = layout == LK_RAW_I420 ? 2 * (size_t)(stride / 2) * chroma_rows : (size_t)stride * chroma_rows;
            if (!need(luma + chroma) || (width % 2) || (height % 2)) {
                if (!need(luma)) return -1;
                // Odd sizes: OpenCV's 4:2:0 converters want even ones; show the luma.
                cv::cvtColor(cv::Mat(height, width, CV_8UC1, source, stride), out, cv::COLOR_GRAY2RGB);
                return need(luma + chroma) ? 0 : -1;
            }
            // OpenCV reads 4:2:0 as one (height * 3 / 2) x width plane; rebuild it when rows are padded.
            cv::Mat planes;
            if (stride == width) {
                planes = cv::Mat(height * 3 / 2, width, CV_8UC1, source);
            } else {
                planes.create(height * 3 / 2, width, CV_8UC1);
                for (int y = 0; y < height; y++) std::copy_n(source + (size_t)y * stride, width, planes.ptr(y));
                const unsigned char *c = source + luma;
                if (layout == LK_RAW_I420) {
                    unsigned char *dst = planes.ptr(height);
                    for (int plane = 0; plane < 2; plane++)
                        for (int y = 0; y < height / 2; y++, dst += width / 2)
                            std::copy_n(c + (size_t)plane * (stride / 2) * (height / 2) + (size_t)y * (stride / 2), width / 2, dst);
                } else {
                    for (int y = 0; y < height / 2; y++) std::copy_n(c + (size_t)y * stride, width, planes.ptr(height + y));
                }
            }
            int code = layout == LK_RAW_NV12 ? cv::COLOR_YUV2RGB_NV12 : layout == LK_RAW_NV21 ? cv::COLOR_YUV2RGB_NV21
                                                                                              : cv::COLOR_YUV2RGB_I420;
            cv::cvtColor(planes, out, code);
            return 0;
        }
        case LK_RAW_422P:
        case LK_RAW_444P: {
            const int chroma_width = layout == LK_RAW_444P ? width : (width + 1) / 2;
            const int chroma_stride = layout == LK_RAW_444P ? stride : stride / 2;
            if (chroma_stride < chroma_width || !need(luma + 2 * (size_t)chroma_stride * height)) return -1;
            cv::Mat y(height, width, CV_8UC1, source, stride);
            cv::Mat u(height, chroma_width, CV_8UC1, source + luma, chroma_stride);
            cv::Mat v(height, chroma_width, CV_8UC1, source + luma + (size_t)chroma_stride * height, chroma_stride);
            cv::Mat u_full, v_full, yuv;
            cv::resize(u, u_full, cv::Size(width, height), 0, 0, cv::INTER_NEAREST);
            cv::resize(v, v_full, cv::Size(width, height), 0, 0, cv::INTER_NEAREST);
            cv::merge(std::vector<cv::Mat>{y, u_full, v_full}, yuv);
            cv::cvtColor(yuv, out, cv::COLOR_YUV2RGB);
            return 0;
        }
        default:
            return -1;
        }
    } catch (const cv::Exception &) {
        return -1;
    }
}

extern "C" void lk_draw_outline(unsigned char *rgb, int width, int height, const double *xs, const double *ys, int count,
                                const char *label, int r, int g, int b) {
    OpenCVCall call;
    if (count <= 0) return;
    cv::Mat image(height, width, CV_8UC3, rgb);
    const cv::Scalar colour(r, g, b);
    const int thickness = std::max(2, std::min(width, height) / 240);
    std::vector<cv::Point> points;
    for (int i = 0; i < count; i++) points.emplace_back(cvRound(xs[i]), cvRound(ys[i]));
    cv::polylines(image, points, true, colour, thickness, cv::LINE_AA);
    if (!label || !*label) return;
    // Hershey fonts are ASCII: anything else shows as '?', one per character, not per byte.
    std::string text;
    for (const unsigned char *p = (const unsigned char *)label; *p && text.size() < 60; p++) {
        if (*p < 0x80) text += (*p >= 0x20 && *p < 0x7F) ? (char)*p : '?';
        else if ((*p & 0xC0) == 0xC0) text += '?';
    }
    const double scale = std::max(0.5, std::min(width, height) / 720.0 * 0.8);
    int baseline = 0;
    const cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, thickness / 2 + 1, &baseline);
    int left = width, top = height;
    for (const auto &point : points) { left = std::min(left, point.x); top = std::min(top, point.y); }
    left = std::clamp(left, 0, std::max(0, width - size.width - 4));
    int band_top = top - size.height - baseline - 6;
    if (band_top < 0) band_top = std::min(height - size.height - baseline - 6, top + thickness);
    band_top = std::max(0, band_top);
    cv::rectangle(image, cv::Rect(left, band_top, size.width + 4, size.height + baseline + 6), colour, cv::FILLED);
    const cv::Scalar ink = (r * 299 + g * 587 + b * 114) / 1000 > 128 ? cv::Scalar(0, 0, 0) : cv::Scalar(255, 255, 255);
    cv::putText(image, text, cv::Point(left + 2, band_top + size.height + 3), cv::FONT_HERSHEY_SIMPLEX, scale, ink,
                thickness / 2 + 1, cv::LINE_AA);
}

extern "C" void lk_resize_rgb(const unsigned char *src, int width, int height, unsigned char *dst, int dst_width, int dst_height) {
    OpenCVCall call;
    cv::Mat in(height, width, CV_8UC3, const_cast<unsigned char *>(src));
    cv::Mat out(dst_height, dst_width, CV_8UC3, dst);
    cv::resize(in, out, out.size(), 0, 0, cv::INTER_AREA);
}
