#!/usr/bin/env python3
"""UPC-E symbols of small modules: 512x384 pictures of a label with modules of 1.2 to 2.6 px,
turned by up to 30 degrees either way from any quarter turn, drawn at four times the size and
averaged down, out of focus by up to half a module, with sensor noise, at JPEG quality 40 to 90.
UPC-E's check is only the parity pattern of its six digits: the set where zxing-cpp's reads of
small symbols were found wrong. Read by `lookout scan --types upce` (or, with --as-ean13,
`--types ean13`: the UPC-A they expand to, as EAN-13, as ZBar reads them), beside zxing-cpp asked
for UPC-E (and EAN-13). Fixed seeds.

Makes the pictures in OUT (default .cache/corpus/small-upce) and reads them as small_ean.py
does (ean_sets.py): run it with .cache/accuracy-venv/bin/python.

Usage: scripts/corpus.d/small_upce.py [--lookout PATH] [--out DIR] [--seed S] [--as-ean13] [-- scan options]"""
import os, random, subprocess, sys
import numpy as np
from PIL import Image, ImageFilter
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ean_sets


def upc_a(six):
    """The UPC-A (11 digits, then its check digit) a UPC-E of number system 0 expands to."""
    last = six[5]
    if last in "012":
        body = six[0:2] + last + "0000" + six[2:5]
    elif last == "3":
        body = six[0:3] + "00000" + six[3:5]
    elif last == "4":
        body = six[0:4] + "00000" + six[4]
    else:
        body = six[0:5] + "0000" + last
    digits = "0" + body
    total = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(digits))
    return digits + str((10 - total % 10) % 10)


args = ean_sets.arguments(__doc__, ".cache/corpus/small-upce", seeded=True,
                          flags=[("--as-ean13", "read them as --types ean13 does (ZBar's reads, as EAN-13)")])
rng = random.Random(args.seed)
truth = []
drawn = 4
width, height = 512, 384
for index in range(80):
    while True:                                       # zint refuses six digits no UPC-E holds
        six = "".join(rng.choice("0123456789") for _ in range(6))
        try:
            symbol = ean_sets.symbol(six, args.out, kind="UPCE")
            break
        except subprocess.CalledProcessError:
            continue
    module = rng.uniform(1.2, 2.6)
    scale = drawn * module * 67 / symbol.width        # a UPC-E with its quiet zones is about 67 modules wide
    symbol = symbol.resize((int(symbol.width * scale), int(symbol.height * scale * 0.6)), Image.NEAREST)
    dark, light = rng.uniform(20, 80), rng.uniform(160, 245)
    picture = Image.new("L", (width * drawn, height * drawn), int(rng.uniform(60, 180)))
    paper = Image.new("L", (symbol.width + 40, symbol.height + 40), int(light))
    paper.paste(symbol.point(lambda v: int(dark) if v < 128 else int(light)), (20, 20))
    angle = rng.uniform(-30, 30) + rng.choice([0, 90, 180])
    shape = Image.new("L", paper.size, 255).rotate(angle, expand=True)
    paper = paper.rotate(angle, expand=True, resample=Image.BICUBIC)
    picture.paste(paper, ((picture.width - paper.width) // 2, (picture.height - paper.height) // 2), shape)
    picture = picture.filter(ImageFilter.GaussianBlur(drawn * module * rng.uniform(0, 0.5))).resize((width, height), Image.BOX)
    noise = np.random.default_rng(index).normal(0, 3, (height, width))
    path = os.path.join(args.out, f"upce{index:03d}.jpg")
    Image.fromarray(np.clip(np.asarray(picture, np.float32) + noise, 0, 255).astype("uint8")).save(path, quality=rng.randint(40, 90))
    truth.append({"file": path, "digits": "0" + upc_a(six)[:11], "upce": "0" + six + upc_a(six)[11], "module": round(module, 2)})

describe = lambda e: f"UPC-E {e['upce']}, module {e['module']} px"
if args.as_ean13:
    ean_sets.evaluate(args, truth, describe, formats=("EAN13", "UPCE"))
else:                                                 # zxing-cpp's wheel gives a UPC-E's 13 digits
    ean_sets.evaluate(args, truth, describe, formats=("UPCE",), types="upce", texts=lambda e: {e["upce"], e["digits"] + e["upce"][-1]})
