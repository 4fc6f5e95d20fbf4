"""The free photographs and logos the benchmark photographs are made of (make_bench.py SOURCES),
and the paper and ink of their labels.
"""
import os
import sys

import numpy as np
from PIL import Image

from bench_codes import weighted


SOURCES = sys.argv[1]
SKIMAGE = os.path.join(SOURCES, "skimage")
OPENCV = os.path.join(SOURCES, "opencv")


# Photographs the codes are placed in (none holds a code).
SCENES = [f"{SKIMAGE}/{n}" for n in ("astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg", "motorcycle_left.png",
                                     "brick.png", "grass.png", "gravel.png", "page.png", "text.png", "camera.png",
                                     "coins.png", "hubble_deep_field.jpg", "horse.png")] \
    + [f"{OPENCV}/{n}" for n in ("building.jpg", "fruits.jpg", "home.jpg", "baboon.jpg", "board.jpg", "sudoku.png",
                                 "left01.jpg", "notes.png", "starry_night.jpg", "box_in_scene.png", "stuff.jpg",
                                 "aloeL.jpg", "leuvenA.jpg", "graf1.png", "orange.jpg", "butterfly.jpg", "blox.jpg",
                                 "smarties.png", "apple.jpg", "HappyFish.jpg", "pic1.png", "aero1.jpg")]
LOGOS = [f"{OPENCV}/{n}" for n in ("opencv-logo.png", "LinuxLogo.jpg", "WindowsLogo.jpg", "apple.jpg", "orange.jpg")] \
    + [f"{SKIMAGE}/logo.png"]


def picture_size(rng, megapixels=None):
    mp = megapixels or weighted(rng, [(1.2, 30), (2, 30), (3, 18), (5, 11), (8, 6), (12, 5)])
    aspect = weighted(rng, [(4 / 3, 6), (3 / 4, 3), (16 / 9, 1)])
    width = int(round((mp * 1e6 * aspect) ** 0.5 / 8)) * 8
    return width, int(round(width / aspect / 8)) * 8


def scene(rng, size):
    image = Image.open(rng.choice(SCENES))
    image = (image.convert("RGBA") if image.mode == "P" else image).convert("RGB")
    w, h = size
    if rng.random() < 0.5:
        image = image.transpose(Image.FLIP_LEFT_RIGHT)
    scale = max(w / image.width, h / image.height) * rng.uniform(1, 1.6)
    # Enlarge in two steps from a small crop: as fast, and a photograph's depth of field.
    crop_w, crop_h = min(image.width, int(w / scale) + 2), min(image.height, int(h / scale) + 2)
    x, y = rng.randrange(image.width - crop_w + 1), rng.randrange(image.height - crop_h + 1)
    image = image.crop((x, y, x + crop_w, y + crop_h)).resize((w, h), Image.BILINEAR)
    return np.asarray(image, np.float32)


def paper(rng):
    return weighted(rng, [((238, 236, 230), 5), ((246, 246, 244), 4), ((230, 226, 212), 2), ((250, 240, 200), 1),
                          ((220, 230, 238), 1)])


def ink(rng):
    return weighted(rng, [((22, 22, 24), 6), ((40, 38, 42), 3), ((12, 18, 40), 1)])
