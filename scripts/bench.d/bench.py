#!/usr/bin/env python3
"""Runs Lookout, the bare-library harness and the GStreamer peer pipelines on the same clips,
alternately and several times, and prints median fps, CPU per frame, peak RSS and detections.
Called by scripts/bench, which builds everything and makes the clips. Writes bench-out/results.json,
bench-out/results.md and bench-out/plot.png."""
import json
import os
import re
import statistics
import subprocess
import sys
import time

root, out, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
clips = sys.argv[4:]
cascade = f"{root}/models/haarcascade_frontalface_default.xml"
lookout = f"{root}/.build/release/lookout"
harness = f"{out}/harness"


def measure(argv):
    """Runs argv; returns (stdout, wall s, CPU s, peak RSS MB) from wait4's rusage."""
    start = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    stdout = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"bench: {argv[0]} failed with {process.returncode}")
    return stdout.decode("utf-8", "replace"), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def run_lookout(clip, frames, height):
    stdout, wall, cpu, rss = measure([lookout, "run", "--input", clip, "-q"])
    found = {"qr": set(), "ean13": set(), "face": set()}
    for line in stdout.splitlines():
        item = json.loads(line)
        if item.get("kind") in found:
            found[item["kind"]].add(item["frame"])
    return wall, cpu, rss, {k: len(v) for k, v in found.items()}


def run_harness(clip, frames, height):
    stdout, wall, cpu, rss = measure([harness, clip, cascade])
    result = json.loads(stdout)
    return wall, cpu, rss, {"qr": result["qr"], "ean13": result["ean13"], "face": result["face_frames"]}


def gst(clip, height, faces):
    head = f"filesrc location={clip} ! jpegparse ! jpegdec ! videoconvert"
    if not faces:
        return f"{head} ! zbar ! fakesink"
    face_height = 360 * height // 720 if height < 720 else 360
    face_width = face_height * 16 // 9
    scale = height / face_height
    size = max(1, round(30 / scale))
    return (f"{head} ! tee name=t t. ! queue ! zbar ! fakesink t. ! queue ! videoscale ! "
            f"video/x-raw,width={face_width},height={face_height} ! videoconvert ! "
            f"facedetect profile={cascade} scale-factor=1.1 min-neighbors=3 min-size-width={size} "
            f"min-size-height={size} updates=every_frame ! fakesink")


def run_gst(pipeline):
    def run(clip, frames, height):
        description = gst(clip, height, pipeline == "tee")
        stdout, wall, cpu, rss = measure(["gst-launch-1.0", "-m"] + description.split(" "))
        found = {"qr": 0, "ean13": 0, "face": 0}
        for line in stdout.splitlines():
            if '(element): barcode' in line:
                if "type=(string)QR-Code" in line:
                    found["qr"] += 1
                elif "type=(string)EAN-13" in line:
                    found["ean13"] += 1
            elif '(element): facedetect' in line and re.search(r'faces=\(structure\)\{ "face', line):
                found["face"] += 1
        return wall, cpu, rss, {k: found[k] for k in ("qr", "ean13", "face")}
    return run


systems = {
    "lookout": run_lookout,
    "harness": run_harness,
    "gst-zbar": run_gst("zbar"),
    "gst-tee": run_gst("tee"),
}
descriptions = {
    "lookout": "lookout run (QR + EAN-13 + faces on every frame, faces on a 640-wide copy)",
    "harness": "bare libraries, same settings (scripts/bench.d/harness.cpp)",
    "gst-zbar": "filesrc ! jpegparse ! jpegdec ! videoconvert ! zbar ! fakesink",
    "gst-tee": "... ! tee ! queue ! zbar, tee ! queue ! videoscale 640x360 ! facedetect (scale 1.1, min 3, min 30 px)",
}

results = {}
for clip in clips:
    height = int(re.search(r"(\d+)p", os.path.basename(clip)).group(1))
    frames = int(subprocess.run(["python3", "-c", f"print(open('{clip}','rb').read().count(b'\\xff\\xd9'))"],
                                capture_output=True, text=True).stdout)
    samples = {name: [] for name in systems}
    for repeat in range(repeats):
        # Alternate the systems within each round, so drifts in machine load hit all alike.
        for name, run in systems.items():
            wall, cpu, rss, found = run(clip, frames, height)
            samples[name].append((wall, cpu, rss, found))
            print(f"bench: {height}p {name} run {repeat + 1}: {frames / wall:.1f} fps, "
                  f"{cpu * 1000 / frames:.1f} ms CPU/frame, {rss:.0f} MB, {found}", file=sys.stderr)
    for name, runs in samples.items():
        results.setdefault(str(height), {})[name] = {
            "frames": frames,
            "fps": statistics.median(frames / r[0] for r in runs),
            "cpu_ms_per_frame": statistics.median(r[1] * 1000 / frames for r in runs),
            "peak_rss_mb": max(r[2] for r in runs),
            "detections": runs[-1][3],
        }

json.dump(results, open(f"{out}/results.json", "w"), indent=1)
lines = ["| resolution | system | fps (median) | CPU ms/frame (median) | peak RSS MB | frames with QR / EAN-13 / face |",
         "|---|---|---|---|---|---|"]
for height, by_system in results.items():
    for name, r in by_system.items():
        d = r["detections"]
        lines.append(f"| {height}p | {name} | {r['fps']:.1f} | {r['cpu_ms_per_frame']:.1f} | {r['peak_rss_mb']:.0f} | "
                     f"{d['qr']} / {d['ean13']} / {d['face']} of {r['frames']} |")
lines.append("")
for height, by_system in results.items():
    look, tee, bare = by_system["lookout"], by_system["gst-tee"], by_system["harness"]
    lines.append(f"- {height}p: Lookout CPU/frame is {look['cpu_ms_per_frame'] / tee['cpu_ms_per_frame']:.2f}x the GStreamer tee "
                 f"pipeline's (P1 target <= 0.25 with faces at >= 10/s) and {look['cpu_ms_per_frame'] / bare['cpu_ms_per_frame']:.2f}x "
                 f"the bare harness's (P2 target <= 1.05).")
lines.append("")
lines += [f"- `{name}`: {text}" for name, text in descriptions.items()]
table = "\n".join(lines) + "\n"
open(f"{out}/results.md", "w").write(table)
print(table)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plot
    heights = sorted(int(h) for h in results)
    figure, (fps_axis, cpu_axis) = plot.subplots(1, 2, figsize=(11, 4.2))
    for name in systems:
        fps_axis.plot(heights, [results[str(h)][name]["fps"] for h in heights], marker="o", label=name)
        cpu_axis.plot(heights, [results[str(h)][name]["cpu_ms_per_frame"] for h in heights], marker="o", label=name)
    for axis, title in ((fps_axis, "frames per second (median)"), (cpu_axis, "CPU ms per frame (median)")):
        axis.set_xticks(heights, [f"{h}p" for h in heights])
        axis.set_title(title)
        axis.grid(alpha=0.3)
    cpu_axis.legend()
    figure.tight_layout()
    figure.savefig(f"{out}/plot.png", dpi=110)
except ImportError:
    print("bench: python3-matplotlib missing; no plot", file=sys.stderr)
