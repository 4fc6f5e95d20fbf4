#!/usr/bin/env python3
"""EAN-13 symbols out of focus: 640x480 pictures of a label (modules of 2.5 to 6 px, turned by up
to 12 degrees) blurred by a Gaussian of 0.3 to 0.9 modules, with sensor noise, at JPEG quality 40
to 85, as an early phone camera photographs a product too close to focus. Fixed seeds.

Makes the pictures in OUT (default .cache/corpus/defocused-ean) with truth.json, then reads them
with `lookout scan --types ean13` and with zxing-cpp alone (its PyPI wheel), and prints what each
read, the wrong texts and every miss. Needs zint, and numpy, PIL and zxingcpp: run it with
.cache/accuracy-venv/bin/python (scripts/accuracy makes that environment).

Usage: scripts/corpus.d/defocused_ean.py [--lookout PATH] [--out DIR] [-- scan options]"""
import os, random, sys
import numpy as np
from PIL import Image, ImageFilter
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ean_sets

args = ean_sets.arguments(__doc__, ".cache/corpus/defocused-ean")
rng = random.Random(7)
truth = []
for index in range(60):
    digits = "".join(rng.choice("0123456789") for _ in range(12))
    symbol = ean_sets.symbol(digits, args.out)
    module = rng.uniform(2.5, 6.0)
    scale = module * 113 / symbol.width            # an EAN-13 with its quiet zones is 113 modules wide
    symbol = symbol.resize((int(symbol.width * scale), int(symbol.height * scale * 0.8)), Image.NEAREST)
    width, height = 640, 480
    ground = np.full((height, width), rng.uniform(90, 160)) + np.linspace(0, rng.uniform(-40, 40), width)[None, :]
    picture = Image.fromarray(np.clip(ground, 0, 255).astype("uint8"))
    paper = Image.new("L", (symbol.width + 20, symbol.height + 20), int(rng.uniform(200, 245)))
    paper.paste(symbol.point(lambda v: 30 if v < 128 else int(rng.uniform(200, 245))), (10, 10))
    angle = rng.uniform(-12, 12)
    shape = Image.new("L", paper.size, 255).rotate(angle, expand=True)
    paper = paper.rotate(angle, expand=True, resample=Image.BICUBIC)
    if paper.width > width - 10 or paper.height > height - 10:
        continue                                      # too large for the picture: not made
    picture.paste(paper, (rng.randint(0, width - paper.width), rng.randint(0, height - paper.height)), shape)
    blur = rng.uniform(0.8, 2.2) * module / 2.5
    picture = picture.filter(ImageFilter.GaussianBlur(blur))
    noisy = np.asarray(picture).astype(float) + np.random.default_rng(index).normal(0, rng.uniform(2, 8), (height, width))
    path = os.path.join(args.out, f"ean{index:02d}.jpg")
    Image.fromarray(np.clip(noisy, 0, 255).astype("uint8")).save(path, quality=rng.randint(40, 85))
    truth.append({"file": path, "digits": digits, "module": round(module, 2), "blur": round(blur, 2)})

ean_sets.evaluate(args, truth, lambda e: f"module {e['module']} px, blur {e['blur']} px")
