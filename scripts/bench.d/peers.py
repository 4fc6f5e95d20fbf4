"""What the bench scripts share: running a program with its CPU measured, and the GStreamer peer
pipeline doing Lookout's job (bench.py's P1 rows, capacity.py's ratio)."""
import os
import subprocess
import time


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


def gst_pipeline(clip, cascade, faces):
    """gst-launch's description: ZBar alone, or (faces) the peer as a GStreamer user would build it:
    a tee, facedetect on a 640x360 copy with its own defaults (scale factor 1.25, min neighbours 3,
    min size 30x30), Lookout's cascade file."""
    head = f"filesrc location={clip} ! jpegparse ! jpegdec ! videoconvert"
    if not faces:
        return f"{head} ! zbar ! fakesink"
    return (f"{head} ! tee name=t t. ! queue ! zbar ! fakesink t. ! queue ! videoscale ! "
            f"video/x-raw,width=640,height=360 ! videoconvert ! facedetect profile={cascade} "
            f"updates=every_frame ! fakesink")
