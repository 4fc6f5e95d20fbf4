// What the forked reader (one child per look) and the long-lived worker share: the read itself,
// the child's set-up, and the result protocol over a descriptor. Internal to CZXing.
#ifndef LOOKOUT_ZXING_CHILD_HPP
#define LOOKOUT_ZXING_CHILD_HPP
#include "CZXing.h"
#include <cstddef>

namespace lookout_zxing {

// CLOCK_MONOTONIC in milliseconds.
long long now_ms();

// Reads the codes of `formats` in each region of an 8-bit gray image, trying harder and rotated,
// until `deadline_ms` (now_ms; 0 = none) has passed between two regions; a code read in an earlier
// region is not added again. Payloads are the symbol's bytes (GS1's FNC1 separators as GS, 0x1D,
// as zxing-cpp gives them); for a code with an ECI designator, its text in UTF-8 (as ZBar gives).
// Corners in the image's pixels. Returns the count, -1 when zxing-cpp threw. Only ever called in a
// child: in process, a failed assertion in zxing-cpp 1.4 would abort the service.
int read_codes(const unsigned char *gray, int width, int height, int stride, int formats,
               const lk_zx_region *regions, int region_count, long long deadline_ms,
               lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity);

// In the parent, before every fork: opens the charset converters read_codes uses, once. A child of
// a multithreaded process must not call iconv_open (it takes glibc's converter lock, which another
// thread, ZBar's among them, may hold at the fork); using an open converter is safe.
void prepare_converters();

// In a fresh child: default dispositions for the crash signals (no crash handler of the parent's
// runtime) and standard error to /dev/null, so a failed assertion ends it quietly.
void quiet_child();

// Writes all of `length` bytes, retrying short writes and EINTR; never raises SIGPIPE on a socket.
bool write_all(int fd, const void *data, size_t length);

// Reads up to `length` bytes until EOF or the deadline (now_ms; 0 = none); returns how many
// arrived, -1 on timeout.
long read_until(int fd, void *data, size_t length, long long deadline_ms);

// Sends a read's results: the count, then (when positive) the codes and their payload bytes.
bool send_results(int fd, int count, const lk_zx_code *codes, const unsigned char *bytes);

// Receives what send_results sent; returns the count, -2 when the other side ended or sent
// something malformed, -3 past the deadline.
int receive_results(int fd, long long deadline_ms, lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity);

} // namespace lookout_zxing

#endif
