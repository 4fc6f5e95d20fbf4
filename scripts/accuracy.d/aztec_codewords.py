#!/usr/bin/env python3
"""How many codewords of a code-bench Aztec photograph a sampler of its own would get right:
the symbol zint draws for the marked payload is the truth; the photograph is sampled at the
module centres its marked corners give (one homography, bilinear), each module made dark or light
against the mean of the 7 x 7 modules round it, in the turn and mirror that match the truth
best; the modules are read into codewords in zxing-cpp's order (outermost layer first, each
layer's four sides as its Decoder reads them; compact symbols only) and Reed-Solomon decoded
(errors only, the word size the layers give). Says, per photograph, the wrong codewords against
the check codewords and whether they decode to the truth: what an Aztec restoration
(Sources/CZXing/SoftMatrix.hpp) would have to work with (docs/accuracy.md, "What is left").

Usage: scripts/accuracy.d/aztec_codewords.py [--corpus DIR] code-bench/aztec/NNN.jpg ...
(after scripts/make-corpus; Debian's python3 with numpy and PIL, and zint)"""
import argparse
import base64
import io
import json
import os
import subprocess

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Aztec's fields by word size (ISO/IEC 24778, 7.3.1.1): primitive polynomials, first root 1.
FIELDS = {6: 0x43, 8: 0x12D, 10: 0x409, 12: 0x1069}


def truth_matrix(payload, gs1):
    png = subprocess.run(["zint", "-b", "AZTEC", "--scale=0.5", "--gs1" if gs1 else "--binary", "--notext", "--direct",
                          "--filetype=PNG", "-i", "-"], input=payload, capture_output=True, check=True).stdout
    return (np.asarray(Image.open(io.BytesIO(png)).convert("L")) < 128).astype(np.uint8)


def homography(source, target):
    rows = []
    for (x, y), (u, v) in zip(source, target):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    return np.linalg.svd(np.array(rows, float))[2][-1].reshape(3, 3)


def sampled(gray, corners, size):
    h = homography([(0, 0), (size, 0), (size, size), (0, size)], corners)
    ys, xs = np.mgrid[0:size, 0:size] + 0.5
    points = h @ np.stack([xs.ravel(), ys.ravel(), np.ones(size * size)])
    px, py = points[0] / points[2], points[1] / points[2]
    x0 = np.clip(np.floor(px).astype(int), 0, gray.shape[1] - 2)
    y0 = np.clip(np.floor(py).astype(int), 0, gray.shape[0] - 2)
    fx, fy = np.clip(px - x0, 0, 1), np.clip(py - y0, 0, 1)
    level = (gray[y0, x0] * (1 - fx) * (1 - fy) + gray[y0, x0 + 1] * fx * (1 - fy)
             + gray[y0 + 1, x0] * (1 - fx) * fy + gray[y0 + 1, x0 + 1] * fx * fy).reshape(size, size)
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

    def inv(self, a):
        return self.exp[self.size - 1 - self.log[a]]

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


def decode(field, word, check):
    """Berlekamp-Massey, Chien and Forney (first root 1), errors only; None when it fails."""
    n, s = len(word), [field.syndrome(word, j) for j in range(1, check + 1)]
    if not any(s):
        return list(word)
    c, b, length, shift, last = [1], [1], 0, 1, 1
    for k in range(check):
        d = s[k]
        for i in range(1, min(length, len(c) - 1) + 1):
            d ^= field.mul(c[i], s[k - i])
        if d == 0:
            shift += 1
            continue
        previous, scale = c[:], field.mul(d, field.inv(last))
        c = c + [0] * max(0, len(b) + shift - len(c))
        for i, value in enumerate(b):
            c[i + shift] ^= field.mul(scale, value)
        if 2 * length <= k:
            length, b, last, shift = k + 1 - length, previous, d, 1
        else:
            shift += 1
    omega = [0] * check
    for i in range(check):
        for j in range(min(i + 1, len(c))):
            omega[i] ^= field.mul(c[j], s[i - j])
    fixed, found = list(word), 0
    for power in range(n):
        x_inverse = field.exp[(field.size - 1 - power) % (field.size - 1)]
        value = 0
        for coefficient in reversed(c[:length + 1]):
            value = field.mul(value, x_inverse) ^ coefficient
        if value:
            continue
        found += 1
        numerator = 0
        for coefficient in reversed(omega):
            numerator = field.mul(numerator, x_inverse) ^ coefficient
        derivative = 0
        for j in range(1, len(c), 2):
            derivative ^= field.mul(c[j], field.exp[(field.log[x_inverse] * (j - 1)) % (field.size - 1)])
        if derivative == 0:
            return None
        fixed[n - 1 - power] ^= field.mul(numerator, field.inv(derivative))
    if found != length or any(field.syndrome(fixed, j) for j in range(1, check + 1)):
        return None
    return fixed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.join(ROOT, ".cache", "corpus"))
    parser.add_argument("pictures", nargs="+")
    args = parser.parse_args()
    truth = {p["file"]: p for p in json.load(open(os.path.join(args.corpus, "code-bench", "truth.json")))["pictures"]}
    for name in args.pictures:
        code = truth[name]["codes"][0]
        if code.get("form") == "gs1":
            # zint was given the bracketed element string, which truth.json does not keep.
            print(f"{name}: a GS1 symbol, not counted here")
            continue
        matrix = truth_matrix(base64.b64decode(code["raw_base64"]), False)
        size = matrix.shape[0]
        if size > 27:
            print(f"{name}: {size} x {size}, a full-range symbol (not counted here)")
            continue
        gray = np.asarray(Image.open(os.path.join(args.corpus, name)).convert("L"), float)
        seen = sampled(gray, code["corners"], size)
        turns = [np.rot90(seen, r)[:, ::-1] if m else np.rot90(seen, r) for r in range(4) for m in (0, 1)]
        seen = min(turns, key=lambda t: int((t != matrix).sum()))
        bits, layers = compact_bits(matrix)
        word_bits = 6 if layers <= 2 else 8
        field = Field(word_bits)
        expected, read = words(bits, word_bits), words(compact_bits(seen)[0], word_bits)
        check = check_count(field, expected)
        wrong = sum(a != b for a, b in zip(expected, read))
        fixed = decode(field, read, check)
        print(f"{name}: {size} x {size}, {int((seen != matrix).sum())} wrong modules, {wrong} wrong codewords of "
              f"{len(expected)} against {check} check codewords; "
              f"{'decodes to the truth' if fixed == expected else 'does not decode'}")


if __name__ == "__main__":
    main()
