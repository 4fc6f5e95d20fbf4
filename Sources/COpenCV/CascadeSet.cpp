// A face detector's cascades loaded once for the process (lk_cascade_set, COpenCV.h): detectors
// with the same files share them, and each thread detecting holds one parsed copy (about 0.8 MB
// for the three cascades), where each camera used to hold its own.
#include "COpenCV.h"
#include "CascadeLoading.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace {

// The files of the sets naming them, open while one of those sets is: a model file deleted or
// replaced after its detectors started still gives a new thread the cascades they started with.
struct Files {
    uint64_t id = 0;
    std::string key;
    std::string paths[3];
    int fds[3] = {-1, -1, -1};
    int sets = 0; // guarded by files_lock
    // Parsed copies held by threads; shared with them, as a thread may outlive the files.
    std::shared_ptr<std::atomic<int>> copies = std::make_shared<std::atomic<int>>(0);
};

std::mutex files_lock;
std::map<std::string, Files *> files_by_key; // guarded by files_lock
std::set<uint64_t> open_ids;                 // guarded by files_lock
uint64_t next_id = 1;                        // guarded by files_lock
// Bumped when files are closed: threads then drop their copies of files no set names.
std::atomic<uint64_t> closings{0};

struct Copy {
    lk_cascade *cascade;
    std::shared_ptr<std::atomic<int>> count; // the files' copies
};

// The calling thread's parsed copies, by files; freed when the thread ends.
struct ThreadCopies {
    std::map<uint64_t, Copy> by_id;
    uint64_t closings_seen = 0;
    std::string error;

    ~ThreadCopies() {
        for (auto &entry : by_id) drop(entry.second);
    }

    static void drop(const Copy &copy) {
        lk_cascade_free(copy.cascade);
        copy.count->fetch_sub(1);
    }

    // Forgets the copies of files closed since the last look.
    void forgetClosed() {
        uint64_t now = closings.load();
        if (now == closings_seen) return;
        std::lock_guard<std::mutex> locked(files_lock);
        for (auto it = by_id.begin(); it != by_id.end();) {
            if (open_ids.count(it->first)) {
                ++it;
            } else {
                drop(it->second);
                it = by_id.erase(it);
            }
        }
        closings_seen = now;
    }
};

thread_local ThreadCopies thread_copies;

void write_error(char *err, size_t err_len, const char *message) {
    if (err && err_len > 0) std::snprintf(err, err_len, "%s", message);
}

// The path and what the file is now: a file replaced on disk makes other files.
std::string identity(const char *path) {
    if (!path) return std::string(1, '\0');
    std::string key(path);
    struct stat info;
    if (stat(path, &info) == 0) {
        char text[96];
        std::snprintf(text, sizeof text, "|%llu:%llu:%lld:%lld.%09ld", (unsigned long long)info.st_dev,
                      (unsigned long long)info.st_ino, (long long)info.st_size, (long long)info.st_mtim.tv_sec,
                      info.st_mtim.tv_nsec);
        key += text;
    }
    key.push_back('\0');
    return key;
}

// A parsed copy of the files' cascades, read through the descriptors held open (their path when
// /proc is not there). NULL with *failed and the reason in err on failure.
lk_cascade *load(const Files &files, int *failed, char *err, size_t err_len) {
    char fd_path[3][48];
    const char *sources[3] = {nullptr, nullptr, nullptr};
    for (int i = 0; i < 3; i++) {
        if (files.fds[i] < 0) continue;
        std::snprintf(fd_path[i], sizeof fd_path[i], "/proc/self/fd/%d", files.fds[i]);
        sources[i] = access(fd_path[i], R_OK) == 0 ? fd_path[i] : files.paths[i].c_str();
    }
    *failed = 0;
    lk_cascade *cascade = lk_cascade_load(sources[0], err, err_len);
    if (!cascade) return nullptr;
    for (int i = 1; i < 3; i++) {
        if (!sources[i]) continue;
        int loaded = i == 1 ? lk_cascade_set_verifier(cascade, sources[i], err, err_len)
                            : lk_cascade_set_profile_verifier(cascade, sources[i], err, err_len);
        if (loaded != 0) {
            *failed = i;
            lk_cascade_free(cascade);
            return nullptr;
        }
    }
    files.copies->fetch_add(1);
    return cascade;
}

void close_files(Files *files) {
    for (int fd : files->fds) {
        if (fd >= 0) close(fd);
    }
    delete files;
}

} // namespace

struct lk_cascade_set {
    Files *files;
};

extern "C" lk_cascade_set *lk_cascade_set_open(const char *frontal, const char *verifier, const char *profile,
                                               int *failed, char *err, size_t err_len) {
    const char *paths[3] = {frontal, verifier, profile};
    std::string key = identity(frontal) + identity(verifier) + identity(profile);
    thread_copies.forgetClosed();
    std::lock_guard<std::mutex> locked(files_lock);
    auto known = files_by_key.find(key);
    if (known != files_by_key.end()) {
        known->second->sets += 1;
        lk_cascade_count_detectors(1);
        return new lk_cascade_set{known->second};
    }
    Files *files = new Files();
    files->key = key;
    for (int i = 0; i < 3; i++) {
        if (!paths[i]) continue;
        files->paths[i] = paths[i];
        files->fds[i] = open(paths[i], O_RDONLY | O_CLOEXEC);
        if (files->fds[i] < 0) {
            *failed = i;
            write_error(err, err_len, std::strerror(errno));
            close_files(files);
            return nullptr;
        }
    }
    // Loaded here, so a file that is no cascade fails the detector's creation, not a detection.
    lk_cascade *cascade = load(*files, failed, err, err_len);
    if (!cascade) {
        close_files(files);
        return nullptr;
    }
    files->id = next_id++;
    files->sets = 1;
    files_by_key[key] = files;
    open_ids.insert(files->id);
    thread_copies.by_id[files->id] = Copy{cascade, files->copies};
    lk_cascade_count_detectors(1);
    return new lk_cascade_set{files};
}

extern "C" void lk_cascade_set_close(lk_cascade_set *set) {
    if (!set) return;
    {
        std::lock_guard<std::mutex> locked(files_lock);
        Files *files = set->files;
        if (--files->sets == 0) {
            files_by_key.erase(files->key);
            open_ids.erase(files->id);
            close_files(files);
            closings.fetch_add(1);
        }
    }
    lk_cascade_count_detectors(-1);
    delete set;
    thread_copies.forgetClosed();
}

extern "C" lk_cascade *lk_cascade_set_cascade(lk_cascade_set *set) {
    ThreadCopies &mine = thread_copies;
    mine.forgetClosed();
    auto held = mine.by_id.find(set->files->id);
    if (held != mine.by_id.end()) return held->second.cascade;
    // The set keeps its files open (and their descriptors unchanged) while the caller uses it.
    int failed = 0;
    char err[512] = "";
    lk_cascade *cascade = load(*set->files, &failed, err, sizeof err);
    if (!cascade) {
        mine.error = "the face model " + set->files->paths[failed] + " could not be loaded again: " + err;
        return nullptr;
    }
    mine.by_id[set->files->id] = Copy{cascade, set->files->copies};
    return cascade;
}

const char *lk_cascade_set_load_error() { return thread_copies.error.c_str(); }

extern "C" int lk_cascade_set_copies(lk_cascade_set *set) { return set->files->copies->load(); }
