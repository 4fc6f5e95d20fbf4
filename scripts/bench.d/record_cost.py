#!/usr/bin/env python3
"""P7: what recording costs. Runs `lookout run` on the 720p MJPEG clip (five times over) read as fast as possible,
with the same cheap detection (EAN-8 only, half resolution, every 4th line, no faces: a small,
steady base), alternately without recording and with `--record DIR --record-on always` (every
frame into the ring, the writer, the file, a sync a second), REPEATS times each. Recording's cost
per frame is the difference of the medians of Lookout's CPU time (user + system) divided by the
frames read. Also reports the pre-roll ring's bytes (peak, resident, bound) from the stats line,
with --record-on presence (the ring only, 5 s of pre-roll) and always.
Usage: record_cost.py LOOKOUT CLIP720 REPEATS OUT_DIR. Writes OUT_DIR/record.json; prints markdown."""
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

lookout, clip, repeats, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
# The clip five times over (50 s of stream): one-off costs (loading libavformat's hundred
# libraries, the ring's first page faults) weigh little against 1500 frames.
long_clip = os.path.join(tempfile.gettempdir(), "lookout-record-bench.mjpeg")
with open(clip, "rb") as source:
    data = source.read()
with open(long_clip, "wb") as target:
    for _ in range(5):
        target.write(data)
clip = long_clip
BASE = ["--types", "ean8", "--code-resolution", "half", "--density", "4", "-q", "--stats"]


def run(extra):
    directory = tempfile.mkdtemp(prefix="lookout-record-bench-")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    argv = [lookout, "run", "--input", clip] + BASE + [a.replace("DIR", directory) for a in extra]
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(directory)
    stats = next(json.loads(line) for line in result.stdout.splitlines() if '"kind":"stats"' in line)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, stats


variants = {"without --record": [], "--record-on always": ["--record", "DIR", "--record-on", "always"],
            "--record-on presence": ["--record", "DIR"]}
results = {name: [] for name in variants}
for _ in range(repeats):
    for name, extra in variants.items():
        results[name].append(run(extra))

frames = results["without --record"][0][1]["frames_read"]
median = {name: statistics.median(cpu for cpu, _ in runs) for name, runs in results.items()}
per_frame = (median["--record-on always"] - median["without --record"]) / frames * 1000
ring_only = (median["--record-on presence"] - median["without --record"]) / frames * 1000
summary = {"frames": frames, "repeats": repeats, "cpu_seconds_median": median,
           "recording_ms_per_frame": per_frame, "ring_only_ms_per_frame": ring_only,
           "rings": {name: runs[-1][1].get("recordings") for name, runs in results.items() if name != "without --record"}}
json.dump(summary, open(os.path.join(out, "record.json"), "w"), indent=2)
print(f"- P7 recording: {per_frame:.3f} ms of CPU per 720p MJPEG frame "
      f"(median CPU {median['without --record']:.2f} s without, {median['--record-on always']:.2f} s with "
      f"--record-on always, {frames} frames, {repeats} runs each; target under 0.5 ms); the pre-roll ring "
      f"alone (--record-on presence, nobody in view): {ring_only:.3f} ms")
os.unlink(long_clip)
for name, ring in summary["rings"].items():
    print(f"- P7 ring with {name}: peak {ring['ring_bytes_peak'] / 1048576:.1f} MiB, resident "
          f"{ring['ring_bytes_resident'] / 1048576:.1f} MiB, bound {ring['ring_capacity'] / 1048576:.0f} MiB, "
          f"{ring['frames_written']} frames written, {ring['frames_lost']} lost")
