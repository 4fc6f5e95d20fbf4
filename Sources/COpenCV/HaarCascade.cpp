// Haar cascade detection behind a C API. The handle owns its scratch image so that
// per-frame detection does not allocate once the frame size is stable.
#include "COpenCV.h"
#include "CascadeLoading.hpp"
#include "OpenCVCall.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <vector>

// With more than one cascade open, every detection runs on its own thread: each camera's face
// queue is then the parallelism, and cameras do not fight over one pool (OpenCVCall).
static std::atomic<int> open_cascades{0}; // detectors: lk_cascade_open's handles and cascade sets

void lk_cascade_count_detectors(int change) { open_cascades.fetch_add(change); }

struct lk_cascade {
    cv::CascadeClassifier classifier;
    // A second cascade each candidate must also pass (a face's second look); empty when none.
    cv::CascadeClassifier verifier;
    // A profile-face cascade, searched in both orientations, that may confirm a turned face the
    // verifier refused; empty when none.
    cv::CascadeClassifier profile;
    std::vector<cv::Rect> verified;
    std::vector<int> hits;
    cv::Mat mirrored;
    cv::Mat scaled;
    std::vector<cv::Rect> found;
    std::vector<cv::Rect> joined;
    std::vector<cv::Rect> verified_joins;
};

static void write_error(char *err, size_t err_len, const char *message) {
    if (err && err_len > 0) {
        std::snprintf(err, err_len, "%s", message);
    }
}

extern "C" lk_cascade *lk_cascade_open(const char *path, char *err, size_t err_len) {
    lk_cascade *cascade = lk_cascade_load(path, err, err_len);
    if (cascade) open_cascades.fetch_add(1);
    return cascade;
}

lk_cascade *lk_cascade_load(const char *path, char *err, size_t err_len) {
    // OpenCV's own words (its exception) are the detail; the caller says what is wrong in one
    // sentence. A cascade OpenCV cannot parse prints nothing itself.
    std::string detail;
    lk_cascade *cascade = nullptr;
    try {
        cascade = new lk_cascade();
        if (!cascade->classifier.load(path) || cascade->classifier.empty()) {
            delete cascade;
            cascade = nullptr;
        }
    } catch (const cv::Exception &e) {
        delete cascade;
        cascade = nullptr;
        detail = e.what();
    } catch (const std::exception &e) {
        delete cascade;
        cascade = nullptr;
        detail = e.what();
    }
    if (!cascade) write_error(err, err_len, detail.c_str());
    return cascade;
}

// Loads `path` into `into`; 0, or -1 with OpenCV's words (possibly empty) in err.
static int load_second_cascade(cv::CascadeClassifier &into, const char *path, char *err, size_t err_len) {
    try {
        cv::CascadeClassifier loaded;
        if (!loaded.load(path) || loaded.empty()) {
            write_error(err, err_len, "");
            return -1;
        }
        into = loaded;
        return 0;
    } catch (const cv::Exception &e) {
        write_error(err, err_len, e.what());
    } catch (const std::exception &e) {
        write_error(err, err_len, e.what());
    }
    return -1;
}

extern "C" int lk_cascade_set_verifier(lk_cascade *cascade, const char *path, char *err, size_t err_len) {
    return load_second_cascade(cascade->verifier, path, err, err_len);
}

extern "C" int lk_cascade_set_profile_verifier(lk_cascade *cascade, const char *path, char *err, size_t err_len) {
    return load_second_cascade(cascade->profile, path, err, err_len);
}

static double intersection_over_union(const cv::Rect &a, const cv::Rect &b) {
    double overlap = (a & b).area();
    return overlap > 0 ? overlap / (a.area() + b.area() - overlap) : 0;
}

// The most raw hits `second` gives, in the candidate's neighbourhood (a quarter of its size
// around it) and at 0.6-1.4 times its size, for a face overlapping it by more than 0.3
// (intersection over union); with `mirrored`, in the neighbourhood flipped left to right (a
// profile cascade knows faces turned one way only).
static int second_opinion(lk_cascade *cascade, cv::CascadeClassifier &second, const cv::Mat &image,
                          const cv::Rect &candidate, bool mirrored) {
    int margin = candidate.width / 4;
    cv::Rect area = cv::Rect(candidate.x - margin, candidate.y - margin, candidate.width + 2 * margin,
                             candidate.height + 2 * margin) & cv::Rect(0, 0, image.cols, image.rows);
    int smallest = candidate.width * 6 / 10, largest = candidate.width * 14 / 10 + 1;
    cv::Mat searched = image(area);
    if (mirrored) {
        cv::flip(searched, cascade->mirrored, 1);
        searched = cascade->mirrored;
    }
    cascade->verified.clear();
    cascade->hits.clear();
    // minNeighbors 1 groups the raw hits and counts them; the caller sets the bar.
    second.detectMultiScale(searched, cascade->verified, cascade->hits, 1.05, 1, 0, cv::Size(smallest, smallest),
                            cv::Size(largest, largest));
    int best = 0;
    for (size_t i = 0; i < cascade->verified.size(); i++) {
        cv::Rect found = cascade->verified[i];
        if (mirrored) found.x = area.width - found.x - found.width;
        found.x += area.x;
        found.y += area.y;
        if (intersection_over_union(found, candidate) > 0.3) best = std::max(best, cascade->hits[i]);
    }
    return best;
}

// True when a second cascade agrees: the verifier (alt2) with at least `verify_min_neighbors`
// raw hits, or else the profile cascade, either way round, with `profile_min_neighbors`. The
// false faces of one cascade (textures, checkerboards, animals) seldom pass another, and a face
// turned too far for alt2 is what the profile cascade was trained on (docs/accuracy.md).
static bool verified(lk_cascade *cascade, const cv::Mat &image, const cv::Rect &candidate,
                     const lk_cascade_params *params) {
    if (second_opinion(cascade, cascade->verifier, image, candidate, false) >= params->verify_min_neighbors) return true;
    if (params->profile_min_neighbors <= 0 || cascade->profile.empty()) return false;
    return second_opinion(cascade, cascade->profile, image, candidate, false) >= params->profile_min_neighbors
        || second_opinion(cascade, cascade->profile, image, candidate, true) >= params->profile_min_neighbors;
}

// True when `candidate` (analysed-image pixels, `scale` caller pixels each) overlaps a face the
// caller verified before: the same face again, whose verification would cost as much as the
// cascade's own search in video.
static bool is_trusted(const lk_cascade_params *params, const cv::Rect &candidate, double scale) {
    for (int i = 0; params->trusted && i < params->trusted_count; i++) {
        const lk_rect &t = params->trusted[i];
        cv::Rect known((int)(t.x / scale + 0.5), (int)(t.y / scale + 0.5), (int)(t.width / scale + 0.5),
                       (int)(t.height / scale + 0.5));
        if (intersection_over_union(known, candidate) > 0.3) return true;
    }
    return false;
}

extern "C" void lk_cascade_close(lk_cascade *cascade) {
    if (cascade) open_cascades.fetch_sub(1);
    delete cascade;
}

void lk_cascade_free(lk_cascade *cascade) { delete cascade; }

extern "C" int lk_cascade_detect(lk_cascade *cascade, const unsigned char *gray, int width, int height,
                                 int stride, const lk_cascade_params *params, lk_rect *out, int capacity,
                                 char *err, size_t err_len) {
    if (!cascade) { // a cascade set's copy this thread could not load (lk_cascade_set_cascade)
        write_error(err, err_len, lk_cascade_set_load_error());
        return -1;
    }
    try {
        // Wraps the caller's plane: no copy.
        OpenCVCall call(open_cascades.load() > 1 ? 1 : params->threads);
        cv::Mat image(height, width, CV_8UC1, const_cast<unsigned char *>(gray), (size_t)stride);
        double scale = 1.0;
        const cv::Mat *input = &image;
        if (params->analysis_width > 0 && width > params->analysis_width) {
            scale = (double)width / params->analysis_width;
            int scaled_height = std::max(1, (int)(height / scale + 0.5)); // a strip of a frame stays a strip
            cv::resize(image, cascade->scaled, cv::Size(params->analysis_width, scaled_height), 0, 0,
                       cv::INTER_AREA);
            input = &cascade->scaled;
        }
        int min_w = (int)(params->min_width / scale + 0.5), min_h = (int)(params->min_height / scale + 0.5);
        int max_w = params->max_width > 0 ? (int)(params->max_width / scale + 0.5) : 0;
        int max_h = params->max_height > 0 ? (int)(params->max_height / scale + 0.5) : 0;
        cascade->found.clear();
        cascade->classifier.detectMultiScale(*input, cascade->found, params->scale_factor, params->min_neighbors, 0,
                                             cv::Size(min_w, min_h), cv::Size(max_w, max_h));
        cascade->verified_joins.clear();
        if (params->verify_min_neighbors > 0 && !cascade->verifier.empty() && params->join_min_neighbors > 0) {
            // The verifier's own search, joined: what the first cascade missed but agrees with
            // when asked around it (the same test, the other way round).
            cascade->joined.clear();
            cascade->verifier.detectMultiScale(*input, cascade->joined, params->scale_factor, params->min_neighbors, 0,
                                               cv::Size(min_w, min_h), cv::Size(max_w, max_h));
            size_t first = cascade->found.size();
            for (const cv::Rect &r : cascade->joined) {
                bool known = false;
                for (size_t i = 0; i < first && !known; i++) known = intersection_over_union(r, cascade->found[i]) > 0.3;
                if (!known && second_opinion(cascade, cascade->classifier, *input, r, false) >= params->join_min_neighbors) {
                    cascade->verified_joins.push_back(r);
                }
            }
        }
        if (params->verify_min_neighbors > 0 && !cascade->verifier.empty()) {
            std::vector<cv::Rect> &found = cascade->found;
            found.erase(std::remove_if(found.begin(), found.end(), [&](const cv::Rect &r) {
                            return !is_trusted(params, r, scale) && !verified(cascade, *input, r, params);
                        }), found.end());
        }
        cascade->found.insert(cascade->found.end(), cascade->verified_joins.begin(), cascade->verified_joins.end());
        int n = (int)cascade->found.size();
        for (int i = 0; i < n && i < capacity; i++) {
            const cv::Rect &r = cascade->found[i];
            out[i].x = (int)(r.x * scale + 0.5);
            out[i].y = (int)(r.y * scale + 0.5);
            out[i].width = (int)(r.width * scale + 0.5);
            out[i].height = (int)(r.height * scale + 0.5);
        }
        return n;
    } catch (const cv::Exception &e) {
        write_error(err, err_len, e.what());
        return -1;
    } catch (const std::exception &e) { // std::bad_alloc: a frame's analysis, not the process
        write_error(err, err_len, e.what());
        return -1;
    }
}
