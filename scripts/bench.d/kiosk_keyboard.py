"""The keyboard half of the kiosk latency bench (kiosk_latency.py imports it when /dev/uinput can
be written): lookout runs with --keyboard, and a reader of its virtual keyboard, as a kiosk
application reads a scanner, takes the kernel's time of each code's last key event (Enter's
release). The evdev node is switched to CLOCK_MONOTONIC (EVIOCSCLOCKID), so the time is the
kernel's when the key went out, on the clock the bench's frame times use (time.monotonic), and no
scheduling delay of this reader is counted. Where /dev/uinput cannot be written (no uinput module:
a container, this project's build machine), importing this fails and the bench says "not
measured"; scripts/vm/bench-kiosk runs the bench in the test guest, where the real driver is."""
import fcntl
import os
import select
import struct
import threading
import time

if not os.access("/dev/uinput", os.W_OK):
    raise ImportError("no writable /dev/uinput")

LOOKOUT_OPTIONS = ["--keyboard"]
DEVICE = "Lookout scanner kiosk"
EV_KEY, KEY_ENTER, KEY_LEFTSHIFT = 1, 28, 42
EVIOCSCLOCKID = 0x400445A0  # _IOW('E', 0xa0, int)
CLOCK_MONOTONIC = 1
EVENT = struct.Struct("llHHi")
# The us layout's keys for what the bench's values hold (KIOSK-0123): digits, letters, '-'.
KEYS = {2 + n: str((n + 1) % 10) for n in range(10)} | {12: "-"}
for row, first in (("qwertyuiop", 16), ("asdfghjkl", 30), ("zxcvbnm", 44)):
    KEYS |= {first + n: letter for n, letter in enumerate(row)}


def event_node():
    """/dev/input/eventN of the bench's keyboard, or None while it is not there."""
    try:
        blocks = open("/proc/bus/input/devices").read().split("\n\n")
    except OSError:
        return None
    for block in blocks:
        if f'Name="{DEVICE}"' in block:
            for word in block.split():
                if word.startswith("event"):
                    return "/dev/input/" + word
    return None


class Reader:
    def __init__(self):
        self.times = {}
        self.lock = threading.Lock()

    def start(self):
        """Opens the keyboard (lookout made it at its start: it exists by now, or soon)."""
        deadline = time.monotonic() + 60
        while (node := event_node()) is None:
            if time.monotonic() > deadline:
                raise RuntimeError(f"kiosk_keyboard: no input device {DEVICE!r} within 60 s")
            time.sleep(0.05)
        self.fd = os.open(node, os.O_RDONLY)
        fcntl.ioctl(self.fd, EVIOCSCLOCKID, struct.pack("i", CLOCK_MONOTONIC))
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        text, shift = "", False
        while True:
            select.select([self.fd], [], [])
            try:
                data = os.read(self.fd, EVENT.size * 64)
            except OSError:  # the device removed at lookout's end
                return
            for offset in range(0, len(data) - EVENT.size + 1, EVENT.size):
                seconds, micros, kind, code, value = EVENT.unpack_from(data, offset)
                if kind != EV_KEY:
                    continue
                if code == KEY_LEFTSHIFT:
                    shift = value != 0
                elif code == KEY_ENTER and value == 0:
                    with self.lock:
                        self.times.setdefault(text, seconds + micros / 1e6)
                    text = ""
                elif value == 1 and code in KEYS:
                    text += KEYS[code].upper() if shift else KEYS[code]

    def last_keystrokes(self):
        """{code value: time.monotonic() of its last key event}."""
        with self.lock:
            return dict(self.times)
