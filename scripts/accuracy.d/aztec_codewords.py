#!/usr/bin/env python3
"""How many codewords of a code-bench Aztec photograph a sampler of its own would get right:
the symbol zint draws for the marked payload is the truth; the photograph is sampled at the
module centres its marked corners give (one homography, bilinear), each module made dark or light
against the mean of the 7 x 7 modules round it, in the turn and mirror that match the truth
best; the modules are read into codewords in zxing-cpp's order (outermost layer first, each
layer's four sides as its Decoder reads them; compact symbols only). Says, per photograph, the
wrong codewords against the check codewords (the truth's syndromes that vanish) and whether
Reed-Solomon corrects them without erasures (twice the wrong ones at most the check ones): what
an Aztec restoration (Sources/CZXing/SoftMatrix.hpp) would have to work with (docs/accuracy.md,
"What is left").

Usage: scripts/accuracy.d/aztec_codewords.py [--corpus DIR] code-bench/aztec/NNN.jpg ...
(after scripts/make-corpus; Debian's python3 with numpy and PIL, and zint)"""
import argparse
import base64
import json
import os
import sys

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "corpus.d"))
from bench_codes import zint_matrix  # noqa: E402
from bench_tables import homography  # noqa: E402 (beside this script)

ROOT = os.path.dirname(os.path.dirname(HERE))
# Compact Aztec's fields by word size (ISO/IEC 24778, 7.3.1.1): primitive polynomials, first root 1.
FIELDS = {6: 0x43, 8: 0x12D}


def sampled(picture, corners, size):
    """The modules as the picture shows them: its gray levels at the module centres (PIL's
    transform samples each at its centre), dark where darker than the mean of 7 x 7 round it."""
    grid = [(0, 0), (size, 0), (size, size), (0, size)]
    level = np.asarray(picture.transform((size, size), Image.PERSPECTIVE, homography(grid, corners), Image.BILINEAR), float)
    padded = np.pad(level, 3, mode="edge")
    mean = sum(padded[dy:dy + size, dx:dx + size] for dy in range(7) for dx in range(7)) / 49
    return (level < mean).astype(np.uint8)


def compact_bits(matrix):
    """The data layers' bits of a compact symbol, in zxing-cpp's order."""
    size = matrix.shape[0]
    layers = (size - 11) // 4
    bits = []
    for layer in range(layers):
        side, low = (layers - layer) * 4 + 9, layer * 2
        high = size - 1 - low
        sides = [[], [], [], []]
        for j in range(side):
            for k in range(2):
                sides[0].append(matrix[low + j, low + k])
                sides[1].append(matrix[high - k, low + j])
                sides[2].append(matrix[high - j, high - k])
                sides[3].append(matrix[low + k, high - j])
        bits += sides[0] + sides[1] + sides[2] + sides[3]
    return bits, layers


def words(bits, size):
    offset = len(bits) % size
    return [int("".join(map(str, bits[i:i + size])), 2) for i in range(offset, len(bits) - size + 1, size)]


class Field:
    def __init__(self, bits):
        self.size = 1 << bits
        self.exp, self.log, x = [0] * (2 * self.size), [0] * self.size, 1
        for i in range(self.size - 1):
            self.exp[i], self.log[x] = x, i
            x <<= 1
            if x & self.size:
                x ^= FIELDS[bits]
        for i in range(self.size - 1, 2 * self.size):
            self.exp[i] = self.exp[i - (self.size - 1)]

    def mul(self, a, b):
        return 0 if a == 0 or b == 0 else self.exp[self.log[a] + self.log[b]]

    def syndrome(self, word, power):
        s, a = 0, self.exp[power % (self.size - 1)]
        for value in word:
            s = self.mul(s, a) ^ value
        return s


def check_count(field, word):
    """The check codewords of the truth: syndromes from the first root on that vanish."""
    count = 0
    while count < len(word) and field.syndrome(word, count + 1) == 0:
        count += 1
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.join(ROOT, ".cache", "corpus"))
    parser.add_argument("pictures", nargs="+")
    args = parser.parse_args()
    marks = os.path.join(args.corpus, "code-bench", "truth.json")
    if not os.path.exists(marks):
        sys.exit(f"aztec_codewords: no {marks}: run scripts/make-corpus first")
    truth = {p["file"]: p for p in json.load(open(marks))["pictures"]}
    for name in args.pictures:
        if not name.startswith("code-bench/aztec/") or name not in truth:
            sys.exit(f"aztec_codewords: {name} is no Aztec photograph of {marks} (code-bench/aztec/NNN.jpg)")
        code = truth[name]["codes"][0]
        if code.get("form") == "gs1":
            # zint was given the bracketed element string, which truth.json does not keep.
            print(f"{name}: a GS1 symbol, not counted here")
            continue
        matrix = zint_matrix("AZTEC", base64.b64decode(code["raw_base64"]))
        size = matrix.shape[0]
        if size > 27:
            print(f"{name}: {size} x {size}, a full-range symbol (not counted here)")
            continue
        seen = sampled(Image.open(os.path.join(args.corpus, name)).convert("L"), code["corners"], size)
        turns = [np.rot90(seen, r)[:, ::-1] if m else np.rot90(seen, r) for r in range(4) for m in (0, 1)]
        seen = min(turns, key=lambda t: int((t != matrix).sum()))
        bits, layers = compact_bits(matrix)
        word_bits = 6 if layers <= 2 else 8
        field = Field(word_bits)
        expected, read = words(bits, word_bits), words(compact_bits(seen)[0], word_bits)
        check = check_count(field, expected)
        wrong = sum(a != b for a, b in zip(expected, read))
        print(f"{name}: {size} x {size}, {int((seen != matrix).sum())} wrong modules, {wrong} wrong codewords of "
              f"{len(expected)} against {check} check codewords; "
              f"{'Reed-Solomon corrects them' if 2 * wrong <= check else 'beyond Reed-Solomon without erasures'}")


if __name__ == "__main__":
    main()
