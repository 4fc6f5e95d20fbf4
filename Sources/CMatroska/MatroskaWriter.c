// The Matroska writer (CMatroska.h): libavformat's muxer over a custom I/O context that writes
// to Lookout's descriptor. libavformat, libavcodec and libavutil are opened with dlopen.
#include "CMatroska.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUNCTIONS(X)                                                                                               \
    X(avformat_alloc_output_context2) X(avformat_new_stream) X(avformat_write_header) X(av_write_frame)          \
    X(av_write_trailer) X(avformat_free_context) X(avio_alloc_context) X(avio_context_free) X(avio_flush)          \
    X(av_malloc) X(av_free) X(av_dict_set) X(av_dict_free) X(av_strerror) X(av_packet_alloc) X(av_packet_free)   \
    X(av_log_set_level)

static struct {
#define FIELD(name) __typeof__(&name) name;
    FUNCTIONS(FIELD)
#undef FIELD
} av;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void) {
    // libavformat depends on libavcodec and libavutil: dlsym on its handle finds their symbols too.
    void *library = dlopen("libavformat.so.59", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "%s (install Debian's libavformat59)", dlerror());
        return;
    }
#define RESOLVE(name)                                                                                              \
    av.name = (__typeof__(&name))dlsym(library, #name);                                                            \
    if (!av.name) {                                                                                                \
        snprintf(load_error, sizeof load_error, "libavformat.so.59 has no %s", #name);                             \
        return;                                                                                                    \
    }
    FUNCTIONS(RESOLVE)
#undef RESOLVE
    av.av_log_set_level(AV_LOG_QUIET); // errors come back as values, never on standard error
}

struct lk_mkv_writer {
    int fd;
    int write_errno; // the errno of the last failed write(2), lseek(2) or fstat(2)
    int64_t bytes;
    AVFormatContext *format;
    AVIOContext *io;
    AVPacket *packet;
};

static int write_packet(void *opaque, uint8_t *buffer, int size) {
    struct lk_mkv_writer *writer = opaque;
    int done = 0;
    while (done < size) {
        ssize_t n = write(writer->fd, buffer + done, (size_t)(size - done));
        if (n < 0) {
            if (errno == EINTR) continue;
            writer->write_errno = errno;
            return AVERROR(errno);
        }
        done += (int)n;
    }
    writer->bytes += size;
    return size;
}

static int64_t seek(void *opaque, int64_t offset, int whence) {
    struct lk_mkv_writer *writer = opaque;
    if (whence & AVSEEK_SIZE) {
        struct stat info;
        if (fstat(writer->fd, &info) != 0) return AVERROR(errno);
        return info.st_size;
    }
    off_t position = lseek(writer->fd, (off_t)offset, whence & ~AVSEEK_FORCE);
    if (position < 0) {
        writer->write_errno = errno;
        return AVERROR(errno);
    }
    return position;
}

// Says what failed: the system's errno when a write failed, else libavformat's message.
static int fail(struct lk_mkv_writer *writer, const char *what, int status, char *error, size_t length,
                int *error_number) {
    int system = writer && writer->write_errno ? writer->write_errno : (status < 0 && status > -4096 ? -status : 0);
    if (error_number) *error_number = system;
    if (error && length > 0) {
        char reason[256] = "";
        if (system) snprintf(reason, sizeof reason, "%s", strerror(system));
        else av.av_strerror(status, reason, sizeof reason);
        snprintf(error, length, "%s: %s", what, reason);
    }
    return -1;
}

static void release(struct lk_mkv_writer *writer) {
    if (!writer) return;
    if (writer->packet) av.av_packet_free(&writer->packet);
    if (writer->format) av.avformat_free_context(writer->format);
    if (writer->io) {
        av.av_free(writer->io->buffer);
        av.avio_context_free(&writer->io);
    }
    if (writer->fd >= 0) close(writer->fd);
    free(writer);
}

lk_mkv_writer *lk_mkv_create(int fd, int width, int height, char *error, size_t error_length, int *error_number) {
    if (error_number) *error_number = 0;
    pthread_once(&once, load);
    if (load_error[0]) {
        close(fd);
        if (error && error_length) snprintf(error, error_length, "cannot load libavformat: %s", load_error);
        return NULL;
    }
    struct lk_mkv_writer *writer = calloc(1, sizeof *writer);
    if (!writer) {
        close(fd);
        if (error_number) *error_number = ENOMEM;
        if (error && error_length) snprintf(error, error_length, "out of memory");
        return NULL;
    }
    writer->fd = fd;
    int status = av.avformat_alloc_output_context2(&writer->format, NULL, "matroska", NULL);
    if (status < 0 || !writer->format) goto failed;
    const int buffer_size = 64 * 1024;
    uint8_t *buffer = av.av_malloc(buffer_size);
    writer->io = buffer ? av.avio_alloc_context(buffer, buffer_size, 1, writer, NULL, write_packet, seek) : NULL;
    if (!writer->io) {
        av.av_free(buffer);
        status = AVERROR(ENOMEM);
        goto failed;
    }
    writer->format->pb = writer->io;
    writer->format->flags |= AVFMT_FLAG_CUSTOM_IO | AVFMT_FLAG_FLUSH_PACKETS;
    AVStream *stream = av.avformat_new_stream(writer->format, NULL);
    writer->packet = av.av_packet_alloc();
    if (!stream || !writer->packet) {
        status = AVERROR(ENOMEM);
        goto failed;
    }
    stream->time_base = (AVRational){1, 1000};
    stream->codecpar->codec_type = AVMEDIA_TYPE_VIDEO;
    stream->codecpar->codec_id = AV_CODEC_ID_MJPEG;
    stream->codecpar->width = width;
    stream->codecpar->height = height;
    AVDictionary *options = NULL;
    // Clusters of at most a second even between syncs; room for the index at the front is not
    // reserved, so a killed file simply has none (players read it without).
    av.av_dict_set(&options, "cluster_time_limit", "1000", 0);
    status = av.avformat_write_header(writer->format, &options);
    av.av_dict_free(&options);
    if (status < 0) goto failed;
    return writer;

failed:
    fail(writer, "cannot start the Matroska file", status, error, error_length, error_number);
    release(writer);
    return NULL;
}

int lk_mkv_write(lk_mkv_writer *writer, const uint8_t *jpeg, size_t size, int64_t pts_ms, int64_t duration_ms,
                 char *error, size_t error_length, int *error_number) {
    AVPacket *packet = writer->packet;
    packet->data = (uint8_t *)jpeg; // not reference-counted: the muxer copies what it keeps
    packet->size = (int)size;
    packet->stream_index = 0;
    packet->pts = pts_ms;
    packet->dts = pts_ms;
    packet->duration = duration_ms;
    packet->flags = AV_PKT_FLAG_KEY;
    int status = av.av_write_frame(writer->format, packet);
    packet->data = NULL;
    packet->size = 0;
    if (status < 0 || writer->io->error < 0) {
        return fail(writer, "cannot write a frame", status < 0 ? status : writer->io->error, error, error_length,
                    error_number);
    }
    return 0;
}

int lk_mkv_sync(lk_mkv_writer *writer, char *error, size_t error_length, int *error_number) {
    int status = av.av_write_frame(writer->format, NULL); // ends the cluster
    if (status >= 0) av.avio_flush(writer->io);
    if (status < 0 || writer->io->error < 0) {
        return fail(writer, "cannot write to the file", status < 0 ? status : writer->io->error, error,
                    error_length, error_number);
    }
    if (fdatasync(writer->fd) != 0) {
        writer->write_errno = errno;
        return fail(writer, "cannot sync the file", AVERROR(errno), error, error_length, error_number);
    }
    return 0;
}

int64_t lk_mkv_bytes_written(const lk_mkv_writer *writer) { return writer->bytes; }

int lk_mkv_finish(lk_mkv_writer *writer, int abandon, int64_t *file_size, char *error, size_t error_length,
                  int *error_number) {
    int result = 0;
    if (!abandon) {
        int status = av.av_write_trailer(writer->format);
        if (status >= 0) av.avio_flush(writer->io);
        if (status < 0 || writer->io->error < 0) {
            result = fail(writer, "cannot finish the file", status < 0 ? status : writer->io->error, error,
                          error_length, error_number);
        } else if (fsync(writer->fd) != 0) {
            writer->write_errno = errno;
            result = fail(writer, "cannot sync the file", AVERROR(errno), error, error_length, error_number);
        }
    }
    struct stat info;
    if (file_size) *file_size = fstat(writer->fd, &info) == 0 ? (int64_t)info.st_size : writer->bytes;
    int fd = writer->fd;
    writer->fd = -1;
    release(writer);
    if (close(fd) != 0 && result == 0 && !abandon && errno != EINTR) {
        if (error_number) *error_number = errno;
        if (error && error_length) snprintf(error, error_length, "cannot close the file: %s", strerror(errno));
        result = -1;
    }
    return result;
}
