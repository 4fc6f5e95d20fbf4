#!/usr/bin/python3
"""Face searches the P1 configuration could use instead of a full one, against the full search,
on a bench clip (docs/performance.md, "Not done yet"). Needs Debian's python3-opencv (the same
OpenCV 4.6 as Lookout); run it with /usr/bin/python3.

  face-search.py tracked CLIP [EVERY [MARGIN]]  search only around the last analysis's faces
                                                 (each side grown by MARGIN x the face's size),
                                                 with a full search every EVERY-th analysis
  face-search.py scales CLIP FACTOR...           full searches with other scale steps

Like `lookout-p1`: every third frame, shrunk by area to 640 wide, the default frontal cascade,
3 neighbours, faces from 30 px, one thread.
"""
import os
import sys
import time

import cv2
import numpy as np


def analysed_frames(clip):
    try:
        data = open(clip, "rb").read()
    except OSError as error:
        sys.exit(f"face-search.py: cannot read {clip}: {error.strerror}")
    frames, at = [], 0
    while (start := data.find(b"\xff\xd8", at)) >= 0:
        end = data.find(b"\xff\xd9", start) + 2
        frames.append(data[start:end])
        at = end
    for index in range(0, len(frames), 3):
        gray = cv2.imdecode(np.frombuffer(frames[index], np.uint8), cv2.IMREAD_GRAYSCALE)
        if gray is None:
            sys.exit(f"face-search.py: {clip}: frame {index} is not a JPEG OpenCV can decode")
        height = round(gray.shape[0] * 640 / gray.shape[1])
        yield cv2.resize(gray, (640, height), interpolation=cv2.INTER_AREA)


def number(text, kind, name, least):
    """`text` as a number of `kind` at least `least`, or exit saying what is wrong."""
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or value < least:
        sys.exit(f"face-search.py: {name} must be a number of at least {least}, not {text!r}")
    return value


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("tracked", "scales"):
        sys.exit(__doc__)
    tracked = sys.argv[1] == "tracked"
    if tracked and len(sys.argv) > 5:
        sys.exit(__doc__)
    # Arguments first: decoding the clip takes a while.
    factors = [] if tracked else [number(text, float, "FACTOR", 1.01) for text in sys.argv[3:] or ["1.25"]]
    every = number(sys.argv[3], int, "EVERY", 1) if tracked and len(sys.argv) > 3 else 10
    margin = number(sys.argv[4], float, "MARGIN", 0) if tracked and len(sys.argv) > 4 else 0.5
    cv2.setNumThreads(1)
    model = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../models/haarcascade_frontalface_default.xml")
    cascade = cv2.CascadeClassifier(model)
    if cascade.empty():
        sys.exit(f"face-search.py: cannot load {os.path.normpath(model)}")
    images = list(analysed_frames(sys.argv[2]))
    if not images:
        sys.exit(f"face-search.py: no JPEG frames in {sys.argv[2]}")

    def search(image, factor=1.25):
        return list(cascade.detectMultiScale(image, factor, 3, 0, (30, 30)))

    if not tracked:
        for factor in factors:
            start = time.process_time()
            found = sum(bool(search(image, factor)) for image in images)
            ms = (time.process_time() - start) * 1000 / len(images)
            print(f"scale {factor}: a face in {found} of {len(images)} analyses, {ms:.1f} ms each")
        return
    last, full_found, tracked_found = [], 0, 0
    for index, image in enumerate(images):
        full = search(image)
        if index % every == 0 or not last:
            found = full
        else:
            found = []
            for (x, y, w, h) in last:
                grow = int(w * margin)
                x0, y0 = max(0, x - grow), max(0, y - grow)
                x1, y1 = min(image.shape[1], x + w + grow), min(image.shape[0], y + h + grow)
                found += [(a + x0, b + y0, c, d) for (a, b, c, d) in search(image[y0:y1, x0:x1])]
        last = found
        full_found += bool(full)
        tracked_found += bool(found)
    print(f"full search every analysis: a face in {full_found} of {len(images)}; around the last faces "
          f"(full every {every}, margin {margin}): {tracked_found} of {len(images)}")


main()
