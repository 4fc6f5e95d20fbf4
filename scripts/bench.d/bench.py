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

import peers
from peers import measure

root, out, repeats, memory_frames = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
static_clip = sys.argv[5]
clips = sys.argv[6:]
cascade = f"{root}/models/haarcascade_frontalface_default.xml"
lookout = f"{root}/.build/release/lookout"
harness = f"{out}/harness"


def p1_options(height):
    """The configuration for P1/P3/P5 at a clip height: codes on every frame (ZBar density 2),
    faces 10 times per second of video with the peer's settings: scale factor 1.25 and its smallest
    face, 30 px on the 640-wide copy, in frame pixels. From 720p up ZBar reads a half-size copy (the
    clip's codes have 4 px modules at 720p); at 480p (2.7 px) it reads the frame, as at half size
    its EAN-13 is lost."""
    width = {480: 854, 720: 1280, 1080: 1920}[height]
    options = ["--face-rate", "10", "--density", "2", "--scale-factor", "1.25", "--min-face", str(round(30 * width / 640))]
    return options + (["--code-resolution", "half"] if height >= 720 else [])


P1_OPTIONS = p1_options(720)
# What `lookout run` did by default before the fast defaults: every frame for faces at scale 1.1
# from 30 px of the frame, ZBar on every line of the whole frame, no verifier or confirmation.
# The harness does this work, so P2 compares these two.
# Whole searches on every frame (no windows round followed faces or codes): the harness's work.
FULL_OPTIONS = ["--face-rate", "0", "--density", "1", "--code-resolution", "full", "--scale-factor", "1.1",
                "--min-face", "30", "--face-verifier", "none", "--face-confirm", "1",
                "--face-full-search", "0", "--code-scan-rate", "0"]
CLIP_FPS = 30  # scripts/bench makes every clip at 30 fps


def harness_p1_options(height):
    """The bare-library harness doing P1's work: Lookout's P1 options in the harness's words (faces
    on every Nth frame of the 30 fps clip instead of N a second), OpenCV on one thread as Lookout
    runs rate-limited faces."""
    lookout_options = p1_options(height)
    options = dict(zip(lookout_options[::2], lookout_options[1::2]))
    face_every = round(CLIP_FPS / float(options.pop("--face-rate")))
    return [word for pair in options.items() for word in pair] + ["--face-every", str(face_every), "--face-threads", "1"]


def measure_settled(argv, warmup=3.0):
    """Like measure, but CPU is also taken from `warmup` seconds on (/proc/PID/stat then, wait4 at
    the end): what a long-running process costs, without start-up (libraries, cascade, first frame)."""
    start = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    output = []
    import threading
    reader = threading.Thread(target=lambda: output.append(process.stdout.read()))
    reader.start()
    time.sleep(warmup)
    fields = open(f"/proc/{process.pid}/stat").read().rsplit(")", 1)[1].split()
    cpu_at_warmup = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    settled_from = time.monotonic()
    _, status, usage = os.wait4(process.pid, 0)
    end = time.monotonic()
    reader.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench: {argv[0]} failed")
    cpu = usage.ru_utime + usage.ru_stime
    return output[0].decode("utf-8", "replace"), end - start, cpu, (cpu - cpu_at_warmup) / (end - settled_from)


def run_lookout_with(options_for_height):
    def run(clip, frames, height):
        stdout, wall, cpu, rss = measure([lookout, "run", "--input", clip, "-q", "--stats"] + options_for_height(height))
        found = {"qr": set(), "ean13": set(), "face": set()}
        stats = {}
        for line in stdout.splitlines():
            item = json.loads(line)
            if item.get("kind") in found:
                found[item["kind"]].add(item["frame"])
            elif item.get("kind") == "stats":
                stats = item
        counts = {k: len(v) for k, v in found.items()}
        counts["face_analyses"] = stats.get("face_analyses", frames)
        return wall, cpu, rss, counts
    return run


def run_harness_with(options_for_height):
    def run(clip, frames, height):
        stdout, wall, cpu, rss = measure([harness, clip, cascade] + options_for_height(height))
        result = json.loads(stdout)
        return wall, cpu, rss, {"qr": result["qr"], "ean13": result["ean13"], "face": result["face_frames"],
                                "face_analyses": result["face_analyses"]}
    return run


def gst(clip, height, faces):
    return peers.gst_pipeline(clip, cascade, faces)


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
        found["face_analyses"] = frames if pipeline == "tee" else 0
        return wall, cpu, rss, found
    return run


systems = {
    "lookout": run_lookout_with(lambda height: []),
    "lookout-full": run_lookout_with(lambda height: FULL_OPTIONS),
    "lookout-p1": run_lookout_with(p1_options),
    "harness": run_harness_with(lambda height: []),
    "harness-p1": run_harness_with(harness_p1_options),
    "gst-zbar": run_gst("zbar"),
    "gst-tee": run_gst("tee"),
}
descriptions = {
    "lookout": "lookout run with no options, its defaults: codes on every frame (ZBar density 2, half size from 1280 px wide, the second pass on at most 4 frames a second that ZBar read nothing in), faces 10 times per second of video (640-wide copy, scale 1.25, min 3, from 30 px of the copy, the alt2 verifier, confirmed by a second analysis)",
    "lookout-full": "lookout run " + " ".join(FULL_OPTIONS) + ": the work the defaults did before (faces searched whole on every frame at scale 1.1, ZBar on every line of the whole frame), which the harness does",
    "lookout-p1": "lookout run --face-rate 10 --density 2 --scale-factor 1.25 --min-face 30*width/640 [--code-resolution half from 720p]: codes on every frame, faces 10 times per second of video with the peer's face settings",
    "harness": "bare libraries doing lookout-full's work (scripts/bench.d/harness.cpp)",
    "harness-p1": "bare libraries doing lookout-p1's work: the same frames for faces, the same settings, half-size decoding and codes from 720p, OpenCV on one thread",
    "gst-zbar": "filesrc ! jpegparse ! jpegdec ! videoconvert ! zbar ! fakesink",
    "gst-tee": "... ! tee ! queue ! zbar, tee ! queue ! videoscale 640x360 ! facedetect (its defaults: scale 1.25, min 3, min 30x30)",
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
            "cpu_ms_per_frame_rounds": [round(r[1] * 1000 / frames, 2) for r in runs],
            "peak_rss_mb": max(r[2] for r in runs),
            "detections": runs[-1][3],
        }


# P3: live-like 720p at 30 fps (paced input): latency from receiving a frame to writing its code
# lines, late drops, face analyses per second.
clip720 = next(c for c in clips if "720p" in c)
live = {}
for name, options in (("lookout", []), ("lookout-p1", P1_OPTIONS)):
    stdout, wall, cpu, rss = measure([lookout, "run", "--input", clip720, "--realtime", "--fps", "30", "-q", "--stats"] + options)
    stats = json.loads(stdout.splitlines()[-1])
    latency = stats["timings"]["code_latency"]
    live[name] = {"code_latency_p50_ms": latency["p50_ms"], "code_latency_p99_ms": latency["p99_ms"],
                  "code_latency_max_ms": latency["max_ms"], "late_drops": stats["dropped"]["late"],
                  "face_frames_late": stats["face_frames_late"], "frames_read": stats["frames_read"],
                  "face_analyses_per_s": stats["face_analyses"] / (stats["frames_read"] / 30), "cpu_percent": cpu / wall * 100}
    print(f"bench: P3 {name}: {live[name]}", file=sys.stderr)

# P3 with the kinds zxing-cpp reads asked for, on the 720p clip holding one of each (scripts/bench
# makes it). CPU is left out: the reader's worker process ends after lookout and is not its child's
# time then.
kinds_clip = os.path.join(os.path.dirname(clip720), "clip-720p-kinds.mjpeg")
if os.path.exists(kinds_clip):
    name = "lookout --types qr,ean13,pdf417,aztec,datamatrix"
    stdout, wall, cpu, rss = measure([lookout, "run", "--input", kinds_clip, "--realtime", "--fps", "30", "-q", "--stats",
                                      "--types", "qr,ean13,pdf417,aztec,datamatrix"])
    stats = json.loads(stdout.splitlines()[-1])
    latency = stats["timings"]["code_latency"]
    kinds_live = {"code_latency_p50_ms": latency["p50_ms"], "code_latency_p99_ms": latency["p99_ms"],
                  "code_latency_max_ms": latency["max_ms"], "late_drops": stats["dropped"]["late"],
                  "frames_read": stats["frames_read"], "detections": stats["detections"],
                  "zxing_failures": stats["zxing_failures"]}
    print(f"bench: P3 {name}: {kinds_live}", file=sys.stderr)
else:
    kinds_live = None

# P5: a static 720p scene at 30 fps: CPU with and without the motion gate.
static = {}
for name, options in (("lookout", []),
                      ("lookout-p1 --motion-threshold 4", P1_OPTIONS + ["--motion-threshold", "4"]),
                      ("lookout --motion-threshold 0", ["--motion-threshold", "0"])):
    stdout, wall, cpu, settled = measure_settled([lookout, "run", "--input", static_clip, "--realtime", "--fps", "30",
                                                  "-q", "--stats"] + options)
    stats = json.loads(stdout.splitlines()[-1])
    static[name] = {"cpu_percent_of_one_core": settled * 100, "cpu_percent_with_startup": cpu / wall * 100,
                    "frames_read": stats["frames_read"],
                    "frames_unchanged": stats["frames_unchanged"], "detections": stats["detections"]}
    print(f"bench: P5 {name}: {static[name]}", file=sys.stderr)

# P4: peak RSS and its drift over a long run: the 480p clip looped into standard input.
memory = {}
if memory_frames > 0:
    import threading
    clip480 = next(c for c in clips if "480p" in c)
    data = open(clip480, "rb").read()
    loops = -(-memory_frames // data.count(b"\xff\xd9"))
    process = subprocess.Popen([lookout, "run", "--input", "-", "-q", "--stats"] + p1_options(480),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def feed():
        try:
            for _ in range(loops):
                process.stdin.write(data)
            process.stdin.close()
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed)
    writer.start()
    output = []
    reader = threading.Thread(target=lambda: output.append(process.stdout.read()))
    reader.start()
    samples, start = [], time.monotonic()
    while process.poll() is None:
        try:
            for line in open(f"/proc/{process.pid}/status"):
                if line.startswith("VmRSS:"):
                    samples.append((time.monotonic() - start, int(line.split()[1]) / 1024))
        except FileNotFoundError:
            break
        time.sleep(1)
    writer.join()
    reader.join()
    stats = json.loads(output[0].splitlines()[-1])
    settled = [rss for t, rss in samples if t >= samples[-1][0] * 0.1] if samples else [0]
    memory = {"frames": stats["frames_read"], "seconds": round(time.monotonic() - start, 1),
              "rss_at_10_percent_mb": round(settled[0], 1), "rss_max_after_mb": round(max(settled), 1),
              "rss_end_mb": round(samples[-1][1], 1) if samples else 0,
              "drift_mb": round(max(settled) - settled[0], 1)}
    print(f"bench: P4 {memory}", file=sys.stderr)

results_all = {"runs": results, "live_720p30": live, "live_720p30_kinds": kinds_live, "static_720p30": static, "memory": memory}
json.dump(results_all, open(f"{out}/results.json", "w"), indent=1)
lines = ["| resolution | system | fps (median) | CPU ms/frame (median) | peak RSS MB | frames with QR / EAN-13 | faces found / analyses |",
         "|---|---|---|---|---|---|---|"]
for height, by_system in results.items():
    for name, r in by_system.items():
        d = r["detections"]
        faces = f"{d['face']} / {d['face_analyses']}" if d["face_analyses"] else "-"
        lines.append(f"| {height}p | {name} | {r['fps']:.1f} | {r['cpu_ms_per_frame']:.1f} | {r['peak_rss_mb']:.0f} | "
                     f"{d['qr']} / {d['ean13']} of {r['frames']} | {faces} |")
lines.append("")


def rounds(a, b):
    """The CPU ratio of a to b within each round: the verdict is the ratio of the medians, these
    (the systems ran back to back in a round) show how far the machine's load moved it."""
    return ", ".join(f"{x / y:.3f}" for x, y in zip(a["cpu_ms_per_frame_rounds"], b["cpu_ms_per_frame_rounds"]))


for height, by_system in results.items():
    look, full, fast, tee = by_system["lookout"], by_system["lookout-full"], by_system["lookout-p1"], by_system["gst-tee"]
    bare, bare_p1 = by_system["harness"], by_system["harness-p1"]
    # Three decimals and a verdict: 0.254 must not read as a met 0.25.
    p1 = fast['cpu_ms_per_frame'] / tee['cpu_ms_per_frame']
    p2 = full['cpu_ms_per_frame'] / bare['cpu_ms_per_frame']
    defaults = look['cpu_ms_per_frame'] / tee['cpu_ms_per_frame']
    floor = bare_p1['cpu_ms_per_frame'] / tee['cpu_ms_per_frame']
    lines.append(f"- {height}p: P1 `lookout-p1` CPU/frame = {p1:.3f}x `gst-tee` "
                 f"(target <= 0.25: {'met' if p1 <= 0.25 else 'not met'}; round by round {rounds(fast, tee)}); "
                 f"P2 `lookout-full` = {p2:.3f}x `harness` "
                 f"(target <= 1.05: {'met' if p2 <= 1.05 else 'not met'}; round by round {rounds(full, bare)}).")
    lines.append(f"- {height}p: P1 with defaults: `lookout` CPU/frame = {defaults:.3f}x `gst-tee` "
                 f"(target <= 0.25: {'met' if defaults <= 0.25 else 'not met'}; round by round {rounds(look, tee)}); "
                 f"{look['detections']['qr']} / {look['detections']['ean13']} frames with QR / EAN-13 of {look['frames']}, "
                 f"faces in {look['detections']['face']} of {look['detections']['face_analyses']} analyses.")
    # What the libraries alone cost for P1's work: how far under the target any framework could get.
    lines.append(f"- {height}p: P1's floor: `harness-p1` = {floor:.3f}x `gst-tee` (round by round {rounds(bare_p1, tee)}); "
                 f"`lookout-p1` = {fast['cpu_ms_per_frame'] / bare_p1['cpu_ms_per_frame']:.3f}x `harness-p1` "
                 f"(round by round {rounds(fast, bare_p1)}).")
for name, r in live.items():
    lines.append(f"- P3, 720p paced at 30 fps, `{name}`: code latency p50 {r['code_latency_p50_ms']:.1f} ms, "
                 f"p99 {r['code_latency_p99_ms']:.1f} ms, max {r['code_latency_max_ms']:.1f} ms; {r['late_drops']} late drops "
                 f"of {r['frames_read']} frames; {r['face_analyses_per_s']:.1f} face analyses/s; {r['cpu_percent']:.0f} % CPU.")
if kinds_live:
    r = kinds_live
    lines.append(f"- P3, 720p paced at 30 fps with a PDF417, an Aztec and a DataMatrix, `lookout --types qr,ean13,pdf417,aztec,datamatrix`: "
                 f"code latency p50 {r['code_latency_p50_ms']:.1f} ms, p99 {r['code_latency_p99_ms']:.1f} ms, "
                 f"max {r['code_latency_max_ms']:.1f} ms; {r['late_drops']} late drops of {r['frames_read']} frames; "
                 f"detections {r['detections']}; {r['zxing_failures']} zxing failures.")
for name, r in static.items():
    lines.append(f"- P5, static 720p scene at 30 fps, `{name}`: {r['cpu_percent_of_one_core']:.1f} % of one core after the first 3 s "
                 f"({r['cpu_percent_with_startup']:.1f} % with start-up); "
                 f"{r['frames_unchanged']} of {r['frames_read']} frames unchanged; detections {r['detections']}.")
if memory:
    lines.append(f"- P4, {memory['frames']} frames of 480p through standard input in {memory['seconds']} s: RSS "
                 f"{memory['rss_at_10_percent_mb']} MB at 10 % of the run, at most {memory['rss_max_after_mb']} MB after, "
                 f"{memory['rss_end_mb']} MB at the end (drift {memory['drift_mb']} MB).")
lines.append("")
lines += [f"- `{name}`: {text}" for name, text in descriptions.items()]
table = "\n".join(lines) + "\n"
open(f"{out}/results.md", "w").write(table)
print(table)

# The plot is drawn by gnuplot, not matplotlib: Debian's python3-matplotlib pulls in OpenBLAS
# (through scipy), which becomes the system BLAS that OpenCV loads, and whose start-up threads then
# spin some 70 ms of CPU in every run of Lookout and of the GStreamer peer.
heights = sorted(int(h) for h in results)
data = "".join(f"{h} " + " ".join(f"{results[str(h)][name]['fps']} {results[str(h)][name]['cpu_ms_per_frame']}"
                                  for name in systems) + "\n" for h in heights)
open(f"{out}/plot.dat", "w").write(data)
tics = ", ".join(f'"{h}p" {h}' for h in heights)
def curves(column):
    return ", ".join(f"'{out}/plot.dat' using 1:{2 * index + column} with linespoints pt 7 ps 0.8 title '{name}'"
                     for index, name in enumerate(systems))
script = f"""set terminal pngcairo size 1210,460 font 'sans,9'
set output '{out}/plot.png'
set multiplot layout 1,2
set grid
set yrange [0:*]
set xtics ({tics})
unset key
set title 'frames per second (median)'
plot {curves(2)}
set key top left
set title 'CPU ms per frame (median)'
plot {curves(3)}
unset multiplot
"""
try:
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
except (OSError, subprocess.CalledProcessError) as error:
    print(f"bench: no plot ({error}); gnuplot-nox draws it", file=sys.stderr)
