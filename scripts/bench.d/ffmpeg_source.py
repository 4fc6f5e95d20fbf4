#!/usr/bin/env python3
"""P8: what an ffmpeg source costs, and where its pictures should come from. The 720p clip becomes
H.264 in MP4 (as a network camera sends it); then, REPEATS times each, alternating:
  - ffmpeg alone writing Y4M to a pipe: luma only (gray, converted by swscale or the decoder's Y
    plane copied out by extractplanes), 4:2:0 (yuv420p), and gray plus a second
    output of MJPEG at every frame (ffmpeg's own encoder: what "a second output" would cost);
  - lookout reading the MP4 through ffmpeg (cheap detection: EAN-8, half resolution, every 4th
    line, no faces), luma only, and with 4:2:0 asked for (--snapshots makes Lookout ask).
A TurboJPEG picture from the planes Lookout already holds costs what P6 measured (about 9 ms for a
boxed 720p picture, only when one is wanted), against ffmpeg's encoder on every frame here.
CPU time is user + system of all children, per frame. Usage: ffmpeg_source.py LOOKOUT CLIP720
REPEATS OUT_DIR. Writes OUT_DIR/ffmpeg.json; prints markdown."""
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

lookout, clip, repeats, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
work = tempfile.mkdtemp(prefix="lookout-ffmpeg-bench-")
mp4 = os.path.join(work, "clip-720p.mp4")
subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "mjpeg", "-r", "30", "-i", clip, "-c:v", "libx264",
                "-preset", "veryfast", "-pix_fmt", "yuv420p", mp4], check=True)
frames = int(subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                             "stream=nb_read_frames", "-of", "csv=p=0", mp4], stdout=subprocess.PIPE, text=True,
                            check=True).stdout.strip())


def cpu(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


FF = ["ffmpeg", "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-i", mp4, "-map", "0:v:0", "-an",
      "-f", "yuv4mpegpipe", "-strict", "-1"]
BASE = [lookout, "run", "--input", mp4, "--types", "ean8", "--code-resolution", "half", "--density", "4", "-q"]
snapshots = os.path.join(work, "snaps")
cases = {
    "ffmpeg, gray Y4M (-pix_fmt gray)": FF + ["-pix_fmt", "gray", "pipe:1"],
    "ffmpeg, gray Y4M (extractplanes=y)": FF + ["-vf", "extractplanes=y", "-pix_fmt", "gray", "pipe:1"],
    "ffmpeg, 4:2:0 Y4M": FF + ["-pix_fmt", "yuv420p", "pipe:1"],
    "ffmpeg, gray Y4M + MJPEG output": FF + ["-pix_fmt", "gray", "pipe:1", "-map", "0:v:0", "-f", "mjpeg", "-pix_fmt", "yuvj420p", "-q:v", "5",
                                             "/dev/null"],
    "lookout via ffmpeg, luma only": BASE,
    "lookout via ffmpeg, 4:2:0 (--snapshots)": BASE + ["--snapshots", snapshots],
}
samples = {name: [] for name in cases}
for _ in range(repeats):
    for name, argv in cases.items():
        samples[name].append(cpu(argv) / frames * 1000)
shutil.rmtree(work)
result = {name: round(statistics.median(values), 3) for name, values in samples.items()}
result["frames"] = frames
with open(os.path.join(out, "ffmpeg.json"), "w") as f:
    json.dump(result, f, indent=2)
print(f"\n### P8: ffmpeg sources (720p H.264 MP4, {frames} frames, CPU ms per frame, median of {repeats})\n")
print("| case | CPU ms/frame |")
print("|---|---|")
for name in cases:
    print(f"| {name} | {result[name]} |")
