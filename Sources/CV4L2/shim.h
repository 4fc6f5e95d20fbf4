#ifndef LOOKOUT_CV4L2_SHIM_H
#define LOOKOUT_CV4L2_SHIM_H
// ioctl request numbers are function-like macros and v4l2_open/v4l2_ioctl are variadic:
// neither imports into Swift, so they are re-exported here as constants and fixed-arity calls.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/videodev2.h>
#include <libv4l2.h>

// Opens a V4L2 node through libv4l2. The node is checked with a plain VIDIOC_QUERYCAP first so
// that a non-V4L2 file fails with ENOTTY instead of libv4l2 printing to stderr; libv4l2's own
// log goes to /dev/null (Lookout reports every error itself, in one sentence).
static inline int lk_v4l2_open(const char *path, int flags) {
    // v4l2_log_file is libv4l2's one global, set once however many copies of this inline exist
    // and however many cameras open at once: the first to set it wins, the others close theirs.
    if (!__atomic_load_n(&v4l2_log_file, __ATOMIC_ACQUIRE)) {
        FILE *log = fopen("/dev/null", "we"), *none = NULL;
        if (log && !__atomic_compare_exchange_n(&v4l2_log_file, &none, log, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) fclose(log);
    }
    int fd = open(path, flags);
    if (fd < 0) return -1;
    struct v4l2_capability capability;
    if (ioctl(fd, VIDIOC_QUERYCAP, &capability) < 0 || v4l2_fd_open(fd, 0) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}
static inline int lk_v4l2_close(int fd) { return v4l2_close(fd); }
static inline int lk_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }

static const unsigned long LK_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long LK_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long LK_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long LK_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long LK_VIDIOC_TRY_FMT = VIDIOC_TRY_FMT;
static const unsigned long LK_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long LK_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long LK_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long LK_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long LK_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long LK_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long LK_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long LK_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long LK_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long LK_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long LK_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
static const unsigned long LK_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
static const unsigned long LK_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
static const unsigned long LK_VIDIOC_S_CTRL = VIDIOC_S_CTRL;

static const unsigned int LK_V4L2_PIX_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;
static const unsigned int LK_V4L2_PIX_FMT_JPEG = V4L2_PIX_FMT_JPEG;
static const unsigned int LK_V4L2_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
static const unsigned int LK_V4L2_PIX_FMT_UYVY = V4L2_PIX_FMT_UYVY;
static const unsigned int LK_V4L2_PIX_FMT_GREY = V4L2_PIX_FMT_GREY;
static const unsigned int LK_V4L2_PIX_FMT_NV12 = V4L2_PIX_FMT_NV12;
static const unsigned int LK_V4L2_PIX_FMT_NV21 = V4L2_PIX_FMT_NV21;
static const unsigned int LK_V4L2_PIX_FMT_YUV420 = V4L2_PIX_FMT_YUV420;
static const unsigned int LK_V4L2_PIX_FMT_YVU420 = V4L2_PIX_FMT_YVU420;

#endif
