#!/usr/bin/env python3
"""How long a reload interrupts the cameras (issue 29): two paced 720p30 cameras (a QR code in
every frame, motion gate off so every frame gives a line), a SIGHUP that changes one camera's
settings and leaves the other alone. For the changed camera: the wall-clock gap between its last
line before the reload and its first line after. For the unchanged one: the largest gap between
two of its lines around the reload, and whether its frame numbers go on without a break.
Usage: scripts/bench.d/reload_gap.py [LOOKOUT_BINARY] [REPEATS]  (default .build/release/lookout, 3)
"""
import datetime, json, os, signal, subprocess, sys, tempfile, threading, time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/release/lookout")
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
work = tempfile.mkdtemp(prefix="lookout-reload-")
clip = os.path.join(work, "clip.mjpeg")
subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-stream_loop", "-1", "-i", os.path.join(root, "Tests/Fixtures/sample.mjpeg"),
                "-vf", "scale=1280:720", "-r", "30", "-t", "60", "-c:v", "mjpeg", "-q:v", "7", "-f", "mjpeg", clip], check=True)


def config(types):
    return f"""capture:
  realtime: true
detection:
  motion-threshold: 0
  types: [qr]
cameras:
  steady:
    input: {clip}
  changing:
    input: {clip}
    types: {types}
"""


def when(line):
    return datetime.datetime.fromisoformat(line["time"].replace("Z", "+00:00")).timestamp()


for run in range(repeats):
    path = os.path.join(work, "lookout.yml")
    with open(path, "w") as f:
        f.write(config("[qr]"))
    process = subprocess.Popen([binary, "run", "--config", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines, errors = [], []
    threading.Thread(target=lambda: [lines.append(json.loads(l)) for l in process.stdout], daemon=True).start()
    threading.Thread(target=lambda: [errors.append(l) for l in process.stderr], daemon=True).start()
    time.sleep(4)
    with open(path, "w") as f:
        f.write(config("[qr, ean13]"))
    reload_at = time.time()
    process.send_signal(signal.SIGHUP)
    time.sleep(4)
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
    changing = [l for l in lines if l.get("camera") == "changing"]
    before = [when(l) for l in changing if when(l) < reload_at]
    after = [when(l) for l in changing if when(l) >= reload_at]
    steady = [l for l in lines if l.get("camera") == "steady" and l.get("kind") == "qr"]
    times = [when(l) for l in steady]
    around = [b - a for a, b in zip(times, times[1:]) if reload_at - 1 <= a <= reload_at + 1]
    frames = [l["frame"] for l in steady]
    increasing = all(b > a for a, b in zip(frames, frames[1:]))
    gap = (min(after) - max(before)) if before and after else float("nan")
    print(f"run {run + 1}: changed camera down {gap * 1000:.0f} ms (last line before the reload to first after); "
          f"unchanged camera: largest gap around the reload {max(around) * 1000 if around else float('nan'):.0f} ms, "
          f"frame numbers increasing: {increasing}, frames {frames[0] if frames else '-'}..{frames[-1] if frames else '-'} ({len(frames)} lines); "
          f"{''.join(e for e in errors if 'reloaded' in e).strip()}")
