#!/usr/bin/env python3
"""Kiosk latency (issue 42 part 5): from the first frame a code is in to its `code` event on
/api/events, as a kiosk page receives it, at 720p and 30 frames a second.

Usage: kiosk_latency.py LOOKOUT OUT_DIR [--codes N] [--keep-frames F] [--gap-frames F] [lookout options...]

Plays a paced clip to `lookout run --input kiosk=- --events changes --http` on standard input, as
a camera delivers frames: 720p JPEG frames at 30 a second, a blank scene, then a QR code of a new
value (qrencode) for --keep-frames frames (default 15), then the blank scene for --gap-frames
(default 25) give or take 6 (seeded: the codes then come at every phase of lookout's periodic
whole-frame scans, 7.5 a second by default), N times (default 60). A frame's time is when its last byte has been written (a
camera's frame is whole then). An SSE client on /api/events takes the time each `code` event
arrives. Each code's latency is its event's time minus the time of its first frame. Prints a
markdown line and writes OUT_DIR/kiosk.json: p50, p99 (nearest rank), max, codes missed.

The keyboard half (to a code's last keystroke) needs a writable /dev/uinput: then
scripts/bench.d/kiosk_keyboard.py is used as a hook. It gives LOOKOUT_OPTIONS (["--keyboard"],
added to lookout's) and Reader(), whose start() is called once lookout runs and whose
last_keystrokes() returns {code value: time.monotonic() of its last key event}; the column `to
last keystroke` is filled from it, and says `not measured` where there is no uinput (this
project's build machine: scripts/vm/bench-kiosk runs the bench in the test guest).
"""
import io
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time

from PIL import Image

lookout, out = sys.argv[1], sys.argv[2]
args = sys.argv[3:]


def option(name, default):
    if name in args:
        i = args.index(name)
        value = int(args[i + 1])
        del args[i:i + 2]
        return value
    return default


codes, keep, gap = option("--codes", 60), option("--keep-frames", 15), option("--gap-frames", 25)
FPS, WIDTH, HEIGHT = 30, 1280, 720
# Seconds lookout may take to serve its event stream (an emulated guest starts slowly).
START_LIMIT = int(os.environ.get("KIOSK_START_LIMIT", "60"))

try:
    sys.path.insert(0, os.path.dirname(__file__))
    import kiosk_keyboard  # the keyboard half's hook, where /dev/uinput can be written
except ImportError:
    kiosk_keyboard = None


def jpeg(picture):
    data = io.BytesIO()
    picture.save(data, format="JPEG", quality=85)
    return data.getvalue()


def code_frame(value):
    """The blank scene with a QR code of `value`, 300 pixels wide, left of centre."""
    png = subprocess.run(["qrencode", "-o", "-", "-s", "10", "-m", "2", value], check=True, capture_output=True).stdout
    drawn = Image.open(io.BytesIO(png)).convert("RGBA")
    qr = Image.alpha_composite(Image.new("RGBA", drawn.size, "white"), drawn).convert("L").resize((300, 300), Image.NEAREST)
    scene = BLANK_PICTURE.copy()
    scene.paste(qr, (400, 210))
    return jpeg(scene)


BLANK_PICTURE = Image.new("L", (WIDTH, HEIGHT), 190)
BLANK = jpeg(BLANK_PICTURE)
values = [f"KIOSK-{n:04d}" for n in range(codes)]
frames = {value: code_frame(value) for value in values}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


port = free_port()
argv = [lookout, "run", "--input", "kiosk=-", "--fps", str(FPS), "--types", "qr", "--events", "changes", "-q",
        "--http", f"127.0.0.1:{port}"] + (kiosk_keyboard.LOOKOUT_OPTIONS if kiosk_keyboard else []) + args
# Its diagnostics in a file, said when it ends early (a pipe nobody reads could fill and block it).
errors = open(os.path.join(out, "kiosk-lookout.err"), "w+b")
process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors)
# The server starts once the input gave its first frames.
for _ in range(FPS):
    process.stdin.write(BLANK)
process.stdin.flush()

arrivals = {}
connected = threading.Event()


def listen():
    """An SSE client as a page's EventSource is: the time each code event's data line arrives."""
    deadline = time.monotonic() + START_LIMIT
    while True:
        try:
            client = socket.create_connection(("127.0.0.1", port))
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    client.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    buffer = b""
    while True:
        chunk = client.recv(65536)
        if not chunk:
            return
        now = time.monotonic()
        buffer += chunk
        if b": lookout events" in buffer:
            connected.set()
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            start = line.find(b"data: {")
            if start < 0:
                continue
            record = json.loads(line[start + 6:])
            if record.get("kind") == "code" and record["value"] not in arrivals:
                arrivals[record["value"]] = now


threading.Thread(target=listen, daemon=True).start()
waited = 0
while not connected.wait(1):
    waited += 1
    if process.poll() is not None:
        sys.exit(f"kiosk_latency: lookout ended with status {process.returncode} before its event stream answered: "
                 + open(errors.name, "rb").read().decode(errors="replace").strip()[-600:])
    if waited >= START_LIMIT:
        sys.exit(f"kiosk_latency: the event stream did not answer within {START_LIMIT} s")
keyboard = kiosk_keyboard.Reader() if kiosk_keyboard else None
if keyboard:
    keyboard.start()

# Paced at 30 frames a second from here, as a camera would deliver them.
gaps = random.Random(42)
first_frame = {}
start = time.monotonic()
index = 0
for value in values:
    for n in range(keep + gap + gaps.randint(-6, 6)):
        due = start + index / FPS
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        process.stdin.write(frames[value] if n < keep else BLANK)
        process.stdin.flush()
        if n == 0:
            first_frame[value] = time.monotonic()
        index += 1
# The last event has the gap and more to arrive.
time.sleep(2)
process.stdin.close()
# With --http the web view stays up after the input's end: stop it.
process.terminate()
process.wait(timeout=30)


def summary(times):
    latencies = sorted((times[v] - first_frame[v]) * 1000 for v in values if v in times)
    if not latencies:
        return None
    rank = lambda q: latencies[min(len(latencies) - 1, max(0, round(q * len(latencies) + 0.5) - 1))]
    return {"p50_ms": round(statistics.median(latencies), 1), "p99_ms": round(rank(0.99), 1),
            "max_ms": round(latencies[-1], 1), "codes": len(latencies), "missed": codes - len(latencies)}


result = {"to_sse_event": summary(arrivals),
          "to_last_keystroke": summary(keyboard.last_keystrokes()) if keyboard else None,
          "fps": FPS, "size": f"{WIDTH}x{HEIGHT}", "codes": codes, "keep_frames": keep, "gap_frames": gap,
          "load_average": os.getloadavg()[0]}
json.dump(result, open(os.path.join(out, "kiosk.json"), "w"), indent=1)


def cell(r):
    return f"p50 {r['p50_ms']:.0f} ms, p99 {r['p99_ms']:.0f} ms, max {r['max_ms']:.0f} ms ({r['codes']} codes, {r['missed']} missed)" if r else "not measured"


print(f"- Kiosk latency, 720p paced at 30 fps, {codes} QR codes each in view {keep} frames: from the first frame "
      f"a code is in to its SSE event: {cell(result['to_sse_event'])}; to its last keystroke: {cell(result['to_last_keystroke'])} "
      f"(load average {result['load_average']:.1f})")
