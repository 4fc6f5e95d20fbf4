#!/usr/bin/env python3
"""EAN-13 symbols of small modules: 512x384 pictures of a label with modules of 1.1 to 1.8 px,
turned by any angle, drawn at four times the size and averaged down as a sensor integrates; sharp,
out of focus (a Gaussian of 0.3 to 0.7 modules) or moved (a line of 0.5 to 1.4 modules, along or
across the picture), with sensor noise, at JPEG quality 30 to 85, as a webcam sees a product held
at arm's length. Fixed seeds.

Makes the pictures in OUT (default .cache/corpus/small-ean) and reads them as defocused_ean.py
does (ean_sets.py): run it with .cache/accuracy-venv/bin/python.

Usage: scripts/corpus.d/small_ean.py [--lookout PATH] [--out DIR] [-- scan options]
       scripts/corpus.d/small_ean.py --picture N --to PATH   (one picture, for a fixture)
       --seed S makes another set of the same kind (11 by default)"""
import os, random, sys
import numpy as np
from PIL import Image, ImageFilter
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ean_sets

args = ean_sets.arguments(__doc__, ".cache/corpus/small-ean", one_picture=True)
rng = random.Random(args.seed)
truth = []
drawn = 4                                              # drawn at four times the picture's size
width, height = 512, 384
for index in range(300):
    digits = "".join(rng.choice("0123456789") for _ in range(12))
    symbol = ean_sets.symbol(digits, args.out)
    module = rng.uniform(1.1, 1.8)
    scale = drawn * module * 113 / symbol.width        # an EAN-13 with its quiet zones is 113 modules wide
    symbol = symbol.resize((int(symbol.width * scale), int(symbol.height * scale * 0.6)), Image.NEAREST)
    dark, light = rng.uniform(20, 90), rng.uniform(150, 245)
    ground = np.full((height * drawn, width * drawn), rng.uniform(60, 180))
    ground += np.linspace(0, rng.uniform(-40, 40), width * drawn)[None, :]
    picture = Image.fromarray(np.clip(ground, 0, 255).astype("uint8"))
    paper = Image.new("L", (symbol.width + 40, symbol.height + 40), int(light))
    paper.paste(symbol.point(lambda v: int(dark) if v < 128 else int(light)), (20, 20))
    angle = rng.uniform(-40, 40) + rng.choice([0, 90, 180])
    shape = Image.new("L", paper.size, 255).rotate(angle, expand=True)
    paper = paper.rotate(angle, expand=True, resample=Image.BICUBIC)
    if paper.width > picture.width - 40 or paper.height > picture.height - 40:
        continue                                      # too large for the picture: not made
    picture.paste(paper, (rng.randint(0, picture.width - paper.width), rng.randint(0, picture.height - paper.height)), shape)
    kind = rng.choice(["sharp", "out of focus", "moved"])
    if kind == "out of focus":
        picture = picture.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.7) * module * drawn))
    elif kind == "moved":
        length = max(2, int(rng.uniform(0.5, 1.4) * module * drawn))
        axis = rng.choice([0, 1])                      # across the picture's rows or its columns
        moved = np.asarray(picture).astype(float)
        moved = sum(np.roll(moved, k, axis=axis) for k in range(length)) / length
        picture = Image.fromarray(np.clip(moved, 0, 255).astype("uint8"))
    picture = picture.resize((width, height), Image.BOX)
    noise = np.random.default_rng(index).normal(0, rng.uniform(1, 6), (height, width))
    path = args.to if args.picture == index else os.path.join(args.out, f"small{index:03d}.jpg")
    quality = rng.randint(30, 85)
    if args.picture in (None, index):
        Image.fromarray(np.clip(np.asarray(picture).astype(float) + noise, 0, 255).astype("uint8")).save(path, quality=quality)
    truth.append({"file": path, "digits": digits, "module": round(module, 2), "kind": kind})
    if args.picture == index:
        sys.exit(0)

if args.picture is not None:
    sys.exit(f"small_ean: picture {args.picture} is not made (too large for its picture, or past the last)")
ean_sets.evaluate(args, truth, lambda e: f"module {e['module']} px, {e['kind']}")
