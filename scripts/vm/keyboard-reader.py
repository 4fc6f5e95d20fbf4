#!/usr/bin/env python3
"""Reads Lookout's virtual keyboards back, as a desktop would (scripts/vm/keyboard-tests, in the
test guest): waits for each named keyboard to appear (/proc/bus/input/devices), opens its
/dev/input/eventN, touches READY, then reads its key events until the device is removed (ENODEV)
and turns them into text with libxkbcommon in LAYOUT (XKB's name: us, gb, de, fr), dead keys
composed with the Space after them. Writes a JSON object to OUT: per device, the text (Enter as
\\n, Tab as \\t), presses and releases, keys left down, and the SYN_DROPPED evdev sent when this
reader fell behind (run it with a real-time priority on a busy machine: scripts/vm/keyboard-tests).
Usage: keyboard-reader.py LAYOUT READY OUT NAME..."""
import ctypes, errno, json, os, select, struct, sys, time

layout, ready_path, out_path, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

xkb = ctypes.CDLL("libxkbcommon.so.0")
class RuleNames(ctypes.Structure):
    _fields_ = [(field, ctypes.c_char_p) for field in ("rules", "model", "layout", "variant", "options")]
xkb.xkb_context_new.restype = ctypes.c_void_p
xkb.xkb_keymap_new_from_names.restype = ctypes.c_void_p
xkb.xkb_keymap_new_from_names.argtypes = [ctypes.c_void_p, ctypes.POINTER(RuleNames), ctypes.c_int]
xkb.xkb_state_new.restype = ctypes.c_void_p
xkb.xkb_state_new.argtypes = [ctypes.c_void_p]
xkb.xkb_state_update_key.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int]
xkb.xkb_state_key_get_utf8.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]
xkb.xkb_state_key_get_one_sym.restype = ctypes.c_uint32
xkb.xkb_state_key_get_one_sym.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
xkb.xkb_keysym_get_name.argtypes = [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]
context = xkb.xkb_context_new(0)
keymap = xkb.xkb_keymap_new_from_names(context, ctypes.byref(RuleNames(b"evdev", b"pc105", layout.encode(), b"", b"")), 0)
if not keymap:
    sys.exit(f"keyboard-reader: no XKB keymap for layout {layout}")
# What a dead key followed by Space makes (XKB's Compose table for these).
SPACING = {"dead_circumflex": "^", "dead_grave": "`", "dead_acute": "´", "dead_tilde": "~", "dead_diaeresis": "¨"}
EV_SYN, EV_KEY, SYN_DROPPED, KEY_ENTER, KEY_TAB, KEY_SPACE = 0, 1, 3, 28, 15, 57


def event_node(name):
    """The eventN handler of the input device called `name`, or None."""
    try:
        text = open("/proc/bus/input/devices").read()
    except OSError:
        return None
    for block in text.split("\n\n"):
        if f'N: Name="{name}"' in block:
            for line in block.splitlines():
                if line.startswith("H: Handlers="):
                    for handler in line.split("=", 1)[1].split():
                        if handler.startswith("event"):
                            return "/dev/input/" + handler
    return None


class Reader:
    def __init__(self, name, node):
        self.name, self.fd = name, os.open(node, os.O_RDONLY | os.O_NONBLOCK)
        self.state = xkb.xkb_state_new(keymap)
        self.text, self.presses, self.releases, self.down, self.dead = "", 0, 0, set(), None
        self.pending = b""
        # Times evdev dropped events because this reader fell behind (its client buffer is 64
        # events): the reader's failure, not the writer's.
        self.dropped = 0

    def key(self, code, value):
        keycode = code + 8  # evdev to XKB
        if value == 1:
            self.presses += 1
            self.down.add(code)
            name_buffer = ctypes.create_string_buffer(64)
            xkb.xkb_keysym_get_name(xkb.xkb_state_key_get_one_sym(self.state, keycode), name_buffer, 64)
            symbol = name_buffer.value.decode()
            if code == KEY_ENTER:
                self.text += "\n"
            elif code == KEY_TAB:
                self.text += "\t"
            elif symbol.startswith("dead_"):
                self.dead = symbol
            else:
                utf8 = ctypes.create_string_buffer(64)
                xkb.xkb_state_key_get_utf8(self.state, keycode, utf8, 64)
                character = utf8.value.decode()
                if self.dead is not None:
                    character = SPACING.get(self.dead, "?") if code == KEY_SPACE else "?" + character
                    self.dead = None
                self.text += character
            xkb.xkb_state_update_key(self.state, keycode, 1)
        elif value == 0:
            self.releases += 1
            self.down.discard(code)
            xkb.xkb_state_update_key(self.state, keycode, 0)

    def read(self):
        """Reads what is there; False once the device is gone."""
        try:
            data = os.read(self.fd, 24 * 64)
        except OSError as error:
            if error.errno == errno.EAGAIN:
                return True
            return False  # ENODEV: removed
        if not data:
            return False
        self.pending += data
        while len(self.pending) >= 24:
            _, _, kind, code, value = struct.unpack("qqHHi", self.pending[:24])
            self.pending = self.pending[24:]
            if kind == EV_KEY:
                self.key(code, value)
            elif kind == EV_SYN and code == SYN_DROPPED:
                self.dropped += 1
        return True


readers = {}
deadline = time.monotonic() + 120
while len(readers) < len(names):
    for name in names:
        if name not in readers and (node := event_node(name)) and os.path.exists(node):
            readers[name] = Reader(name, node)
    if time.monotonic() > deadline:
        sys.exit(f"keyboard-reader: keyboards not found: {sorted(set(names) - set(readers))}")
    time.sleep(0.05)
open(ready_path, "w").close()
open_readers = dict(readers)
while open_readers:
    ready, _, _ = select.select([reader.fd for reader in open_readers.values()], [], [], 300)
    if not ready:
        sys.exit("keyboard-reader: nothing for 300 s and the keyboards are still there")
    for name, reader in list(open_readers.items()):
        if reader.fd in ready and not reader.read():
            del open_readers[name]
json.dump({name: {"text": reader.text, "presses": reader.presses, "releases": reader.releases, "down": sorted(reader.down),
                  "syn_dropped": reader.dropped}
           for name, reader in readers.items()}, open(out_path, "w"), ensure_ascii=False)
