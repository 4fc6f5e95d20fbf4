#!/usr/bin/env python3
"""P6: what the web view costs. Runs `lookout run` on the paced 720p clip (30 fps, the P1
options) four ways, alternately, REPEATS times: without --http, with --http and nobody connected, with
one client reading /api/stream.mjpeg (5 pictures a second, the camera's own JPEG frames), and
with one reading /api/stream.mjpeg?boxes=1 (each picture decoded, drawn on and encoded). CPU is Lookout's own (the
client is another process), from 3 s after start to the end of the clip, as % of one core and in
ms per frame. Usage: http_cost.py LOOKOUT CLIP720 REPEATS OUT_DIR [P1 options...]
Writes OUT_DIR/http.json; prints a markdown list."""
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

lookout, clip, repeats, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
options = sys.argv[5:]
CLOCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(variant, warmup=3.0):
    port = free_port()
    argv = [lookout, "run", "--input", clip, "--realtime", "--fps", "30", "-q", "--stats"] + options
    if variant != "without --http":
        argv += ["--http", f"127.0.0.1:{port}"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    client = None
    if variant.startswith("one viewer"):
        time.sleep(1.0)
        query = "?boxes=1" if "boxes" in variant else ""
        client = subprocess.Popen(["curl", "-sN", "-o", "/dev/null", f"http://127.0.0.1:{port}/api/stream.mjpeg{query}"])
    lines = []
    ended = threading.Event()

    def read():
        for line in process.stdout:
            lines.append(line)
            if '"kind":"stats"' in line:
                ended.set()
        ended.set()
    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(warmup)
    cpu_start, t_start = cpu_seconds(process.pid), time.monotonic()
    ended.wait()
    # With --http a file's web view stays up after its end: measure to the end of the clip, then stop it.
    cpu_end, t_end = cpu_seconds(process.pid), time.monotonic()
    if variant != "without --http":
        process.send_signal(signal.SIGINT)
    process.wait()
    reader.join()
    if client:
        client.kill()
        client.wait()
    stats = json.loads(next(l for l in lines if '"kind":"stats"' in l))
    seconds = t_end - t_start
    frames = seconds * 30
    return {"cpu_percent": (cpu_end - cpu_start) / seconds * 100, "cpu_ms_per_frame": (cpu_end - cpu_start) * 1000 / frames,
            "late_drops": stats["dropped"]["late"], "frames_read": stats["frames_read"]}


variants = ["without --http", "--http, nobody connected", "one viewer", "one viewer with boxes"]
samples = {v: [] for v in variants}
for round_number in range(repeats):
    for variant in variants:
        result = run(variant)
        samples[variant].append(result)
        print(f"bench: P6 {variant} run {round_number + 1}: {result}", file=sys.stderr)
summary = {v: {"cpu_percent": statistics.median(r["cpu_percent"] for r in rs),
               "cpu_ms_per_frame": statistics.median(r["cpu_ms_per_frame"] for r in rs),
               "cpu_ms_per_frame_rounds": [round(r["cpu_ms_per_frame"], 2) for r in rs],
               "late_drops": [r["late_drops"] for r in rs]} for v, rs in samples.items()}
json.dump(summary, open(f"{out}/http.json", "w"), indent=1)
base = summary["without --http"]["cpu_ms_per_frame"]
for variant, r in summary.items():
    print(f"- P6, 720p paced at 30 fps, {variant}: {r['cpu_ms_per_frame']:.2f} ms CPU/frame "
          f"({r['cpu_percent']:.1f} % of one core; {r['cpu_ms_per_frame'] / base:.3f}x without --http; "
          f"rounds {r['cpu_ms_per_frame_rounds']}); late drops {r['late_drops']}")
