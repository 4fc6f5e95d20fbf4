#!/usr/bin/env python3
"""Why each code Lookout misses is missed: detection or decoding.

Reads the misses `scripts/accuracy --list` printed (the development corpus's and the benchmark
photographs') and tries, for each, what a better reader could build on:
  found     zxing-cpp finds the symbol there (in the picture or a sharpened copy) and fails its
            checks: detection worked, decoding did not;
  in reach  the symbol warped upright by its marked corners (3 and 5 px a module, as it is and
            sharpened, with zxing-cpp's local and global thresholds) reads: its modules still
            hold the code, so a better finder or grid would read it;
  neither   not found, and not read even from the marked corners: out of this reader's reach.
A miss on a corpus made before the corners were marked is only looked for.

Usage: scripts/accuracy --list > misses.txt
       .cache/accuracy-venv/bin/python scripts/accuracy.d/miss_causes.py misses.txt [--corpus DIR]
"""
import argparse
import base64
import json
import os
import re
import sys

import numpy as np
import zxingcpp
from PIL import Image, ImageFilter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_tables import homography, inside  # noqa: E402

FORMATS = {"qr": zxingcpp.BarcodeFormat.QRCode, "ean13": zxingcpp.BarcodeFormat.EAN13,
           "pdf417": zxingcpp.BarcodeFormat.PDF417, "aztec": zxingcpp.BarcodeFormat.Aztec,
           "datamatrix": zxingcpp.BarcodeFormat.DataMatrix}
SAME = {"qr": (zxingcpp.BarcodeFormat.QRCode, zxingcpp.BarcodeFormat.QRCodeModel1, zxingcpp.BarcodeFormat.QRCodeModel2),
        "ean13": (zxingcpp.BarcodeFormat.EAN13,), "pdf417": (zxingcpp.BarcodeFormat.PDF417,),
        "aztec": (zxingcpp.BarcodeFormat.Aztec,), "datamatrix": (zxingcpp.BarcodeFormat.DataMatrix,)}
BENCH_MISS = re.compile(r"missed ((?:qr|code)-bench/\S+\.jpg) code (\d+)")
CORPUS_MISS = re.compile(r"missed(?: \w+ \(\w+\))?: (\S+\.jpg)")


def truth(corpus):
    """Marked codes by picture: the development corpus's and the benchmark photographs'."""
    # The development corpus gives each picture's module size beside its one code.
    codes = {e["file"]: [dict(c, module=e["module"]) for c in e["codes"]]
             for e in json.load(open(os.path.join(corpus, "truth.json"))) if "codes" in e}
    for bench in ("qr-bench", "code-bench"):
        path = os.path.join(corpus, bench, "truth.json")
        if os.path.exists(path):
            codes.update({e["file"]: e["codes"] for e in json.load(open(path))["pictures"]})
    return codes


def misses(listing):
    """(picture, code index) for each miss in an accuracy listing."""
    for line in open(listing):
        if match := BENCH_MISS.search(line):
            yield match[1], int(match[2])
        elif match := CORPUS_MISS.search(line):
            yield match[1], 0


def sharpened(image, sigma):
    return image.filter(ImageFilter.UnsharpMask(radius=sigma, percent=150, threshold=0))


def found(picture, code, wanted):
    """Whether zxing-cpp finds a symbol of the code's type inside its corners and fails on it (a
    Micro QR or rMQR symbol it finds in a QR code's modules is not that code)."""
    for image in (picture, sharpened(picture, 1)):
        for result in zxingcpp.read_barcodes(image, formats=wanted, try_invert=True, return_errors=True):
            p = result.position
            centre = ((p.top_left.x + p.bottom_right.x) / 2, (p.top_left.y + p.bottom_right.y) / 2)
            if result.error and result.format in SAME[code["type"]] and inside(centre, code["corners"]):
                return True
    return False


def in_reach(picture, code, wanted, payload):
    """Whether the code reads warped upright by its marked corners."""
    corners = code["corners"]
    across = max(np.hypot(corners[1][0] - corners[0][0], corners[1][1] - corners[0][1]),
                 np.hypot(corners[3][0] - corners[0][0], corners[3][1] - corners[0][1]))
    tall = np.hypot(corners[3][0] - corners[0][0], corners[3][1] - corners[0][1]) / across
    modules = across / code.get("module", 3)
    for scale in (3, 5):
        width, height, quiet = int(modules * scale), max(1, int(modules * scale * tall)), 10 * scale
        box = [(quiet, quiet), (quiet + width, quiet), (quiet + width, quiet + height), (quiet, quiet + height)]
        upright = picture.transform((width + 2 * quiet, height + 2 * quiet), Image.PERSPECTIVE,
                                    homography(box, corners), Image.BICUBIC)
        for image in (upright, sharpened(upright, 0.7 * scale)):
            for binarizer in (zxingcpp.Binarizer.LocalAverage, zxingcpp.Binarizer.GlobalHistogram):
                results = zxingcpp.read_barcodes(image, formats=wanted, try_invert=True, binarizer=binarizer)
                if any(r.bytes == payload for r in results):
                    return True
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("listing", help="what scripts/accuracy --list printed")
    parser.add_argument("--corpus", default=".cache/corpus")
    args = parser.parse_args()
    marked = truth(args.corpus)
    tally = {}
    for name, index in misses(args.listing):
        if name not in marked:
            sys.exit(f"miss_causes: {name} is not in {args.corpus}'s truth")
        code = marked[name][index]
        wanted = FORMATS[code["type"]]
        payload = base64.b64decode(code["raw_base64"])
        picture = Image.open(os.path.join(args.corpus, name)).convert("L")
        if "corners" not in code:
            cause = "no corners"
        elif found(picture, code, wanted):
            cause = "found"
        elif in_reach(picture, code, wanted, payload):
            cause = "in reach"
        else:
            cause = "neither"
        group = name.split("/")[0] if "/" in name else "corpus"
        group += " " + code["type"]
        tally.setdefault(group, {}).setdefault(cause, 0)
        tally[group][cause] += 1
        print(f"{name} code {index} ({code['type']}): {cause}", flush=True)
    print()
    for group, causes in sorted(tally.items()):
        print(f"{group}: {sum(causes.values())} missed; " + ", ".join(f"{n} {c}" for c, n in sorted(causes.items())))


if __name__ == "__main__":
    main()
