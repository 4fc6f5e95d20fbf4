#ifndef LOOKOUT_CMATROSKA_H
#define LOOKOUT_CMATROSKA_H
// A Matroska file of JPEG frames, written by libavformat's own muxer (no hand-made container).
// libavformat is loaded on first use: it brings some 130 libraries, which a run that records
// nothing should not map. The file is written through Lookout's own descriptor, so that it can
// be synced and so that write errors keep their errno.
#include <stddef.h>
#include <stdint.h>

typedef struct lk_mkv_writer lk_mkv_writer;

// Writes the header of a Matroska file with one MJPEG video track of `width` x `height` to `fd`, a
// new empty file opened for writing (the caller creates it, O_EXCL|O_NOFOLLOW in its folder); the
// writer owns `fd` from here, and closes it even when it fails. Returns the writer, or NULL with
// the reason in `error`, and the errno behind it (0 when not a system error) in `*error_number`.
lk_mkv_writer *lk_mkv_create(int fd, int width, int height, char *error, size_t error_length, int *error_number);

// Appends one JPEG frame as it is (no decode, no re-encode) at `pts_ms` milliseconds from the
// file's start, lasting `duration_ms` (0: unknown). Returns 0, or -1 with the reason in `error`.
int lk_mkv_write(lk_mkv_writer *writer, const uint8_t *jpeg, size_t size, int64_t pts_ms, int64_t duration_ms,
                 char *error, size_t error_length, int *error_number);

// Ends the current cluster, writes it out and syncs the file's data to the disk: everything
// written so far survives SIGKILL and power loss. Returns 0, or -1 as lk_mkv_write.
int lk_mkv_sync(lk_mkv_writer *writer, char *error, size_t error_length, int *error_number);

// Bytes written to the file so far (header and whole clusters).
int64_t lk_mkv_bytes_written(const lk_mkv_writer *writer);

// Writes the index and the duration, closes the file and frees the writer. With `abandon`, only
// closes and frees (the file stays as written so far). Sets `*file_size` to the file's final size.
// Returns 0, or -1 as lk_mkv_write (the writer is freed either way).
int lk_mkv_finish(lk_mkv_writer *writer, int abandon, int64_t *file_size, char *error, size_t error_length,
                  int *error_number);

#endif
