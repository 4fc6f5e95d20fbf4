"""Builds the face-tracking clips of the development corpus (see scripts/make-corpus): 1280x720, 30 fps MJPEG,
people cut from the corpus's face photographs moving over a blurred room, and tracks.json saying, per clip, each
visit (who, from when to when) and where every face is on every frame, for scripts/track-report.

Deterministic (fixed seeds). Usage: make_track_clips.py SOURCES OUT [CLIP...]   (writes OUT/tracks/; with CLIP names,
only those clips are made again)"""
import json
import math
import os
import subprocess
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

SOURCES, OUT = sys.argv[1], os.path.join(sys.argv[2], "tracks")
WIDTH, HEIGHT, FPS = 1280, 720, 30
ONLY = set(sys.argv[3:])
FACES = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "faces.json")))


class Person:
    """Head and shoulders cut from a photograph, with a feathered oval edge, and where its face sits in the cut."""

    def __init__(self, name, path, face_index=0, scale=1.0):
        picture = Image.open(os.path.join(SOURCES, path)).convert("RGB")
        x, y, w, h = FACES[os.path.basename(path)][face_index]
        left, top = max(0, round(x - 0.8 * w)), max(0, round(y - 0.6 * h))
        right, bottom = min(picture.width, round(x + 1.8 * w)), min(picture.height, round(y + 2.2 * h))
        cut = picture.crop((left, top, right, bottom))
        size = (round(cut.width * scale), round(cut.height * scale))
        self.name = name
        self.image = cut.resize(size, Image.LANCZOS)
        mask = Image.new("L", size, 0)
        ImageDraw.Draw(mask).ellipse((size[0] * 0.04, size[1] * 0.02, size[0] * 0.96, size[1] * 1.3), fill=255)
        self.mask = mask.filter(ImageFilter.GaussianBlur(max(2, size[0] // 40)))
        # The face box inside the cut, in the cut's pixels.
        self.face = ((x - left) * scale, (y - top) * scale, w * scale, h * scale)


def background():
    """A room, blurred as a camera focused on a person nearer would see it."""
    room = Image.open(os.path.join(SOURCES, "opencv", "home.jpg")).convert("RGB")
    return room.resize((WIDTH, HEIGHT), Image.BICUBIC).filter(ImageFilter.GaussianBlur(4))


def place(frame, person, centre, zoom=1.0, turn=0.0, tilt=0.0):
    """Pastes the person with the face centred at `centre`, scaled by `zoom`, turned (`turn` in -1..1 squeezes the
    face sideways as a head turning does) and tilted (`tilt` degrees). Returns the face box in the frame."""
    squeeze = 1 - 0.35 * abs(turn)
    size = (max(1, round(person.image.width * zoom * squeeze)), max(1, round(person.image.height * zoom)))
    image, mask = person.image.resize(size, Image.BILINEAR), person.mask.resize(size, Image.BILINEAR)
    fx, fy, fw, fh = person.face
    face = (fx * zoom * squeeze, fy * zoom, fw * zoom * squeeze, fh * zoom)
    if tilt:
        pivot = (face[0] + face[2] / 2, face[1] + face[3] / 2)
        image = image.rotate(tilt, Image.BILINEAR, center=pivot)
        mask = mask.rotate(tilt, Image.BILINEAR, center=pivot)
    left, top = round(centre[0] - face[0] - face[2] / 2), round(centre[1] - face[1] - face[3] / 2)
    frame.paste(image, (left, top), mask)
    return [round(left + face[0]), round(top + face[1]), round(face[2]), round(face[3])]


def smooth(t, period):
    """0 to 1 and back, smoothly, once per `period` seconds."""
    return 0.5 - 0.5 * math.cos(2 * math.pi * t / period)


def write_clip(name, seconds, draw, visits):
    """Renders `seconds` of frames with draw(frame, t) -> {person: face box} and encodes them; returns the truth."""
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, name + ".mjpeg")
    if ONLY and name not in ONLY:
        return next(c for c in json.load(open(os.path.join(OUT, "tracks.json"))) if c["file"] == f"tracks/{name}.mjpeg")
    encoder = subprocess.Popen(["ffmpeg", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24",
                                "-s", f"{WIDTH}x{HEIGHT}", "-r", str(FPS), "-i", "-", "-c:v", "mjpeg", "-q:v", "6",
                                "-pix_fmt", "yuvj420p", "-f", "mjpeg", path], stdin=subprocess.PIPE)
    rng = np.random.default_rng(len(name))
    room = background()
    boxes = []
    for n in range(round(seconds * FPS)):
        frame = room.copy()
        faces = draw(frame, n / FPS)
        # Sensor noise, as a camera's: every frame differs a little.
        pixels = np.asarray(frame, dtype=np.int16) + rng.integers(-3, 4, (HEIGHT, WIDTH, 1), dtype=np.int16)
        encoder.stdin.write(np.clip(pixels, 0, 255).astype(np.uint8).tobytes())
        boxes.append(faces)
    encoder.stdin.close()
    if encoder.wait() != 0:
        sys.exit(f"make_track_clips: ffmpeg failed on {name}")
    return {"file": f"tracks/{name}.mjpeg", "fps": FPS, "frames": len(boxes), "visits": visits, "boxes": boxes}


def main():
    astronaut = Person("astronaut", "skimage/astronaut.png", scale=1.3)
    hanks = Person("hanks", "Tom_Hanks_54745.png", scale=1.6)
    messi = Person("messi", "opencv/messi5.jpg", scale=3.2)
    guest = Person("guest", "t1.jpg", face_index=2, scale=0.9)
    clips = []

    # Panning slowly across the view and zooming in and out, in view throughout.
    def pan(frame, t):
        return {"astronaut": place(frame, astronaut, (360 + 560 * smooth(t, 16), 330 + 40 * math.sin(t / 2)),
                                   zoom=0.8 + 0.5 * smooth(t, 9))}
    clips.append(write_clip("pan-zoom", 16, pan, [{"person": "astronaut", "start": 0, "end": 16}]))

    # Turning the head a little from side to side and tilting it, swaying.
    def turn(frame, t):
        return {"hanks": place(frame, hanks, (640 + 60 * math.sin(t / 1.5), 340), zoom=1.0,
                               turn=0.8 * math.sin(2 * math.pi * t / 5), tilt=12 * math.sin(2 * math.pi * t / 7))}
    clips.append(write_clip("turn", 14, turn, [{"person": "hanks", "start": 0, "end": 14}]))

    # Walking slowly across while a hand or a cup passes in front of the face three times for 0.4-0.6 s.
    def occluded(frame, t):
        box = place(frame, messi, (420 + 420 * t / 14, 330 + 20 * math.sin(t)))
        for start, length in ((3.0, 0.4), (7.0, 0.6), (10.5, 0.5)):
            if start <= t < start + length:
                x, y, w, h = box
                ImageDraw.Draw(frame).rounded_rectangle((x - 30, y + h * 0.1, x + w + 30, y + h * 0.85), 40,
                                                        fill=(196, 150, 120))
        return {"messi": box}
    clips.append(write_clip("occluded", 14, occluded, [{"person": "messi", "start": 0, "end": 14}]))

    # In view, walks out to the right, stays away 3 s (longer than --face-leave's 1 s), comes back from the right.
    def leave_return(frame, t):
        if t < 5:
            x = 500 + 60 * t + (0 if t < 4 else 900 * (t - 4) ** 2)
        elif t < 8:
            return {}
        else:
            x = 1400 - 900 * min(1, (t - 8)) + (0 if t < 9 else -20 * (t - 9))
        box = place(frame, astronaut, (x, 340), zoom=0.9)
        return {"astronaut": box} if box[0] + box[2] / 2 < WIDTH else {}
    clips.append(write_clip("leave-return", 15, leave_return, []))
    # The visits are where the face's centre is in view (found by the clip's own boxes).
    clips[-1]["visits"] = visits_from_boxes(clips[-1]["boxes"], "astronaut")

    # Two people walking towards each other and past each other, one behind the other's shoulder.
    def two(frame, t):
        return {"guest": place(frame, guest, (1000 - 500 * t / 15, 260), zoom=0.9),
                "astronaut": place(frame, astronaut, (320 + 560 * t / 15, 420 + 20 * math.sin(t)), zoom=0.85)}
    clips.append(write_clip("two-people", 15, two, [{"person": "guest", "start": 0, "end": 15},
                                                    {"person": "astronaut", "start": 0, "end": 15}]))

    with open(os.path.join(OUT, "tracks.json"), "w") as f:
        json.dump(clips, f, separators=(",", ":"))


def visits_from_boxes(boxes, person):
    visits, start = [], None
    for n, faces in enumerate(boxes + [{}]):
        if person in faces and start is None:
            start = n / FPS
        elif person not in faces and start is not None:
            visits.append({"person": person, "start": start, "end": n / FPS})
            start = None
    return visits


main()
