#ifndef LOOKOUT_CUINPUT_SHIM_H
#define LOOKOUT_CUINPUT_SHIM_H
// The uinput ioctl requests are function-like macros (_IOW, _IO) and ioctl is variadic: neither
// imports into Swift, so each call Lookout makes is a fixed-arity function here. Each returns
// what the system call did (-1 with errno set).
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/input.h>
#include <linux/uinput.h>

static const unsigned short LK_EV_SYN = EV_SYN;
static const unsigned short LK_EV_KEY = EV_KEY;
static const unsigned short LK_SYN_REPORT = SYN_REPORT;
static const unsigned short LK_BUS_VIRTUAL = BUS_VIRTUAL;
static const int LK_UINPUT_MAX_NAME_SIZE = UINPUT_MAX_NAME_SIZE;

static inline int lk_ui_set_evbit(int fd, int bit) { return ioctl(fd, UI_SET_EVBIT, bit); }
static inline int lk_ui_set_keybit(int fd, int key) { return ioctl(fd, UI_SET_KEYBIT, key); }
static inline int lk_ui_dev_create(int fd) { return ioctl(fd, UI_DEV_CREATE); }
static inline int lk_ui_dev_destroy(int fd) { return ioctl(fd, UI_DEV_DESTROY); }

// The legacy setup (a struct uinput_user_dev written to the device), which every kernel with
// uinput takes; UI_DEV_SETUP needs 4.5. Returns the bytes written, or -1.
static inline ssize_t lk_uinput_write_setup(int fd, const char *name, unsigned short vendor, unsigned short product,
                                            unsigned short version) {
    struct uinput_user_dev setup;
    memset(&setup, 0, sizeof setup);
    strncpy(setup.name, name, UINPUT_MAX_NAME_SIZE - 1);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = vendor;
    setup.id.product = product;
    setup.id.version = version;
    return write(fd, &setup, sizeof setup);
}

// One input event (type, code, value), timestamped by the kernel. Returns the bytes written
// (sizeof(struct input_event), 24 on x86_64), or -1.
static inline ssize_t lk_uinput_write_event(int fd, unsigned short type, unsigned short code, int value) {
    struct input_event event;
    memset(&event, 0, sizeof event);
    event.type = type;
    event.code = code;
    event.value = value;
    return write(fd, &event, sizeof event);
}

static inline int lk_uinput_event_size(void) { return (int)sizeof(struct input_event); }

#endif
