#!/usr/bin/python3
"""Face searches the P1 configuration could use instead of a full one, against the full search,
on a bench clip (docs/performance.md, "The libraries' floor"). Needs Debian's python3-opencv (the same
OpenCV 4.6 as Lookout); run it with /usr/bin/python3.

  face-search.py tracked CLIP [EVERY [MARGIN]]  search only around the last analysis's faces
                                                 (each side grown by MARGIN x the face's size),
                                                 with a full search every EVERY-th analysis
  face-search.py scales CLIP FACTOR...           full searches with other scale steps
  face-search.py octaves CLIP [PHOTO...]         OpenCV searches scales from 2 up at a 1-pixel
                                                 step (2 below): this searches them at 2 too, on
                                                 copies shrunk by 1.25^3; on the clip's frames,
                                                 and on crops of photos scaled so that their
                                                 faces span about 40-300 px

Like `lookout-p1`: every third frame, shrunk by area to 640 wide, the default frontal cascade,
3 neighbours, faces from 30 px, one thread. Photos for `octaves` (any with frontal faces): the
astronaut of scikit-image's wheel (scripts/make-fixtures fetches it), for example.
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


def photo_crops(path):
    """640x360 crops of a photo scaled by 0.6 to 4 (steps of 9 %), six at random places per scale."""
    gray = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if gray is None:
        sys.exit(f"face-search.py: {path}: not an image OpenCV can read")
    places = np.random.default_rng(7)
    scale = 0.6
    while scale <= 4.0:
        scaled = cv2.resize(gray, None, fx=scale, fy=scale,
                            interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        canvas = np.full((max(360, scaled.shape[0]), max(640, scaled.shape[1])), 200, np.uint8)
        canvas[:scaled.shape[0], :scaled.shape[1]] = scaled
        for _ in range(6):
            x = int(places.integers(0, canvas.shape[1] - 640 + 1))
            y = int(places.integers(0, canvas.shape[0] - 360 + 1))
            yield np.ascontiguousarray(canvas[y:y + 360, x:x + 640])
        scale *= 1.09


def overlap(a, b):
    """Intersection over union of two (x, y, w, h) boxes."""
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    inter = max(0, w) * max(0, h)
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


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
    if len(sys.argv) < 3 or sys.argv[1] not in ("tracked", "scales", "octaves"):
        sys.exit(__doc__)
    tracked = sys.argv[1] == "tracked"
    for path in sys.argv[3:] if sys.argv[1] == "octaves" else []:
        if not os.path.isfile(path):
            sys.exit(f"face-search.py: no photo at {path}")
    if tracked and len(sys.argv) > 5:
        sys.exit(__doc__)
    # Arguments first: decoding the clip takes a while.
    factors = [number(text, float, "FACTOR", 1.01) for text in sys.argv[3:] or ["1.25"]] if sys.argv[1] == "scales" else []
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

    def octave_search(image):
        """The peer's scales 1.25-1.95 on the image; the next three on a copy shrunk by 1.25^3
        (1.95), and so on: every scale searched at OpenCV's 2-pixel step, the same scales."""
        shrink = 1.25 ** 3
        largest = round(24 * shrink)  # 47 px, the window at scale 1.95
        raw, current, sx, sy = [], image, 1.0, 1.0
        while True:
            for (x, y, w, h) in cascade.detectMultiScale(current, 1.25, 0, 0, (30, 30), (largest, largest)):
                raw.append([round(x * sx), round(y * sy), round(w * sx), round(h * sy)])
            width, height = round(current.shape[1] / shrink), round(current.shape[0] / shrink)
            if min(width, height) < 30:
                break
            sx, sy = sx * current.shape[1] / width, sy * current.shape[0] / height
            current = cv2.resize(current, (width, height), interpolation=cv2.INTER_AREA)
        grouped, _ = cv2.groupRectangles(raw, 3, 0.2)
        return [tuple(int(v) for v in r) for r in grouped]

    if sys.argv[1] == "octaves":
        sources = [(sys.argv[2], images)] + [(path, list(photo_crops(path))) for path in sys.argv[3:]]
        for name, crops in sources:
            counts = {"peer": 0, "octaves": 0, "peer only": 0, "octaves only": 0}
            seconds = {"peer": 0.0, "octaves": 0.0}
            for image in crops:
                start = time.process_time()
                full = search(image)
                middle = time.process_time()
                coarse = octave_search(image)
                seconds["peer"] += middle - start
                seconds["octaves"] += time.process_time() - middle
                counts["peer"] += len(full)
                counts["octaves"] += len(coarse)
                counts["peer only"] += sum(not any(overlap(a, b) >= 0.5 for b in coarse) for a in full)
                counts["octaves only"] += sum(not any(overlap(a, b) >= 0.5 for b in full) for a in coarse)
            print(f"{name}: {len(crops)} images; faces found by the peer's search {counts['peer']}, by octaves "
                  f"{counts['octaves']}; found by the peer's only {counts['peer only']}, by octaves only "
                  f"{counts['octaves only']}; {seconds['peer'] * 1000 / len(crops):.1f} against "
                  f"{seconds['octaves'] * 1000 / len(crops):.1f} ms each")
        return

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
