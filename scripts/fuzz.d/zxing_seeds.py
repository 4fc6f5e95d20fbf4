#!/usr/bin/env python3
"""Seeds for the zxing fuzz target (zxing_fuzz.cpp, whose header layout this writes): the PNG
fixtures as gray images (through ffmpeg, which scripts/setup installs; at most 1024 pixels wide and
MAX_PIXELS in all: linear symbols cropped to a band of rows, others scaled down), read whole and as `lookout scan` reads a still, and hostile images: flat,
checkerboards, QR finder patterns and rings tiled, noise, bars, widths of 1 to 8192, one pixel tall,
and regions outside the image. Deterministic. Usage: zxing_seeds.py OUTPUT_FOLDER FIXTURES_FOLDER
(or zxing_seeds.py --large OUTPUT_FOLDER: the large images zxing-time reads)
"""
import pathlib
import random
import struct
import subprocess
import sys

MAX_PIXELS = 65_536  # scripts/fuzz runs with -max_len of 52 + 65536 + 1536 (a padded stride)
ALL, QR, EAN13, MATRIX, LINEAR = 0, 1, 2, 3, 4
WHOLE, SHRUNK, GROWN, STILL, FRAME, LISTED, WHOLE_AND_LISTED, LOCATED = range(8)
SHRINK = {1: 0, 2: 1, -2: 2, 0: 3, 3: 4}


def header(width, flags=15, formats=ALL, mode=WHOLE, regions=(), pad=0, cell=8, capacity=0, bytes16=0, places=0):
    code = width - 16 if 16 <= width <= 1024 else 0x8000 | (width - 1)
    head = struct.pack("<HBBBHBBBBBB3x", code, pad, flags, formats, 0, mode, len(regions), cell, capacity, bytes16, places)
    for x, y, w, h, shrink in regions:
        head += struct.pack("<hhhhB", x, y, w, h, SHRINK[shrink])
    return head.ljust(52, b"\0")


def image_bytes(width, rows, pad=0):
    """Rows as the target reads them: `pad` bytes after every row but the last."""
    return (b"\xaa" * pad).join(bytes(row) for row in rows)


def gray_png(path, band=False):
    """(width, rows) of a PNG in 8-bit gray, scaled down to fit the limits (to 1024 pixels wide,
    then to MAX_PIXELS, or to its middle rows when `band`)."""
    def pgm(scale):
        args = ["ffmpeg", "-v", "error", "-i", str(path)]
        if scale:
            args += ["-vf", f"scale={scale[0]}:{scale[1]}:flags=area"]
        data = subprocess.run(args + ["-f", "image2pipe", "-c:v", "pgm", "-pix_fmt", "gray", "-"],
                              check=True, capture_output=True).stdout
        magic, w, h, maxval, pixels = data.split(maxsplit=4)
        assert magic == b"P5" and maxval == b"255", path
        return int(w), int(h), pixels
    w, h, pixels = pgm(None)
    factor = min(1.0, 1024 / w, 1.0 if band else (MAX_PIXELS / (w * h)) ** 0.5)
    if factor < 1:
        w, h, pixels = pgm((int(w * factor) // 2 * 2, int(h * factor) // 2 * 2))
    rows = [pixels[y * w:(y + 1) * w] for y in range(h)]
    keep = min(h, MAX_PIXELS // w)
    return w, rows[(h - keep) // 2:(h - keep) // 2 + keep]


def finder(module):
    """A QR finder pattern (7 modules, 1:1:3:1:1) with a module of quiet zone, as rows."""
    def dark(x, y):
        d = max(abs(x // module - 4), abs(y // module - 4))  # rings of modules around the centre
        return d <= 1 or d == 3
    return [[0 if dark(x, y) else 255 for x in range(9 * module)] for y in range(9 * module)]


def tiled(tile, width, height):
    th, tw = len(tile), len(tile[0])
    return [[tile[y % th][x % tw] for x in range(width)] for y in range(height)]


def rings(width, height, ring):
    """Concentric squares around the centre: an Aztec bullseye grown to the whole image."""
    cx, cy = width // 2, height // 2
    return [[0 if (max(abs(x - cx), abs(y - cy)) // ring) % 2 == 0 else 255 for x in range(width)] for y in range(height)]


def main():
    out, fixtures = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.bin"):
        old.unlink()
    rng = random.Random(41)

    def seed(name, width, rows, **options):
        pad = options.get("pad", 0)
        (out / f"{name}.bin").write_bytes(header(width, **options) + image_bytes(width, rows, pad))

    for png in sorted(fixtures.glob("*.png")):
        name = png.stem
        kind = QR if name.startswith("qr") else EAN13 if name.startswith(("ean", "upc")) else \
            MATRIX if name.startswith(("aztec", "datamatrix", "pdf417")) else ALL
        width, rows = gray_png(png, band=name.startswith(("ean", "upc", "code128", "databar")))
        height = len(rows)
        seed(f"{name}-whole", width, rows)
        seed(f"{name}-still", width, rows, formats=kind, mode=STILL, flags=31)
        seed(f"{name}-global", width, rows, formats=kind, flags=15 | 32)
        seed(f"{name}-frame", width, rows, flags=11, formats=MATRIX, mode=FRAME)
        # EAN-13 from its bars' grey levels: on the place of rows of bars, and on the middle half.
        if kind == EAN13:
            seed(f"{name}-profiles", width, rows, formats=kind, places=2, regions=[(width // 4, height // 4, width // 2, height // 2, 1)])
        # Regions partly outside the image, shrunk and grown, and a padded stride.
        seed(f"{name}-regions", width, rows, mode=WHOLE_AND_LISTED, pad=5, regions=[
            (-width // 4, -height // 4, width, height, 2), (width // 2, height // 2, width, height, -2),
            (width // 3, 0, width // 3, 32767, 1), (-32768, -32768, 32767, 32767, 0)])

    w, h = 320, 200
    seed("black", w, [[0] * w] * h)
    seed("white", w, [[255] * w] * h, mode=STILL)
    seed("gray-step", w, [[(x // 64) * 28 for x in range(w)]] * h, mode=STILL)
    def checker(cell, width, height):
        return [[255 * (((x // cell) + (y // cell)) % 2) for x in range(width)] for y in range(height)]
    for cell in (1, 2, 3, 5):
        seed(f"checker-{cell}", 512, checker(cell, 512, 128))
    seed("checker-3-still", 200, checker(3, 200, 200), mode=STILL)
    for module in (1, 2, 3, 4):
        seed(f"finders-{module}", 256, tiled(finder(module), 256, 256), formats=QR)
    seed("finders-2-still", 180, tiled(finder(2), 180, 180), formats=QR, mode=STILL)
    seed("finders-2-grown", 160, tiled(finder(2), 160, 160), formats=QR, mode=GROWN)
    seed("finders-5-shrunk", 900, tiled(finder(5), 900, 72), formats=ALL, mode=SHRUNK)
    for ring in (1, 2, 3):
        seed(f"rings-{ring}", 256, rings(256, 256, ring), formats=MATRIX if ring > 1 else ALL)
    seed("rings-2-still", 200, rings(200, 200, 2), formats=MATRIX, mode=STILL)
    seed("rings-tiled", 256, tiled(rings(22, 22, 2), 256, 256), mode=LOCATED, cell=6)
    seed("noise", 256, [[rng.randrange(256) for _ in range(256)] for _ in range(256)])
    seed("noise-binary", 256, [[rng.choice((0, 255)) for _ in range(256)] for _ in range(256)])
    seed("noise-binary-still", 200, [[rng.choice((0, 255)) for _ in range(200)] for _ in range(200)], mode=STILL)
    blocks = [[rng.choice((0, 255)) for _ in range(64)] for _ in range(64)]
    seed("noise-blocks-4", 256, [[blocks[y // 4][x // 4] for x in range(256)] for y in range(256)], formats=QR, mode=STILL)
    bars = []
    while len(bars) < 1024:
        bars += [rng.choice((0, 255))] * rng.randint(1, 6)
    seed("bars", 1024, [bars[:1024]] * 64, formats=LINEAR)
    seed("bars-rotated", 64, [[bars[y]] * 64 for y in range(1024)], formats=LINEAR, flags=15)
    # Leaning bars where rows of bars are looked for, each place turned upright (LK_ZX_TRY_TURN).
    seed("bars-leaning-located", 256, [[255 if ((x + y // 3) // 4) % 2 else 0 for x in range(256)] for y in range(256)],
         formats=MATRIX, mode=LOCATED, flags=31, cell=8, places=1)
    # The same stood square too (LK_ZX_TRY_RECTIFY): outlines found in bars, then re-sampled.
    seed("bars-leaning-squared", 256, [[255 if ((x + y // 3) // 4) % 2 else 0 for x in range(256)] for y in range(256)],
         formats=MATRIX, mode=LOCATED, flags=31 | 64, cell=8, places=1)
    seed("noise-blocks-squared", 256, [[blocks[y // 4][x // 4] for x in range(256)] for y in range(256)],
         formats=MATRIX, mode=LOCATED, flags=31 | 64, cell=6, places=1)
    guards = ([0, 255, 0] + [255] * 7 * 6 + [255, 0, 255, 0, 255] + [0] * 42 + [0, 255, 0])
    doubled = [v for v in guards for _ in range(2)]
    seed("ean-guards", 1020, [[doubled[x % len(doubled)] for x in range(1020)]] * 64, formats=EAN13)
    # Widths far from a camera's, and images one pixel tall.
    seed("wide-8192", 8192, [[255 * ((x // 3) % 2) for x in range(8192)]] * 8)
    seed("wide-8192-1", 8192, [bars[:1024] * 8])
    seed("tall-1", 1, [[rng.randrange(256)] for _ in range(4096)])
    seed("tall-15", 15, [[rng.choice((0, 255)) for _ in range(15)] for _ in range(2000)])
    seed("tall-17", 17, [[rng.choice((0, 255)) for _ in range(17)] for _ in range(3000)], mode=STILL)
    seed("row-1024", 1024, [bars[:1024]], formats=LINEAR)
    seed("row-16", 16, [[0, 255] * 8])
    seed("square-16", 16, tiled(finder(1), 16, 16), formats=QR, mode=GROWN)
    # Capacities of one code and 16 payload bytes on a readable symbol, and regions all outside.
    width, rows = gray_png(fixtures / "qr-small.png")
    seed("qr-small-capacity-1", width, rows, capacity=1, bytes16=1, mode=WHOLE_AND_LISTED,
         regions=[(0, 0, width, len(rows), -2), (0, 0, width, len(rows), 2)])
    seed("qr-small-outside", width, rows, mode=LISTED,
         regions=[(width, 0, 100, 100, 1), (0, len(rows), 100, 100, 2), (-200, -200, 150, 150, -2), (-8, -8, 40, 40, -2)])


def large(out):
    """Large hostile images for timing (zxing-time): 4000x3000 stills read with every effort and
    format, whole and as `lookout scan` reads them, and 1920x1080 frames as the video second pass
    reads a region (harder, rotated, downscaled). Bytes, not lists: 12 M pixels each."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(41)
    binary = bytes.maketrans(bytes(range(256)), bytes([0] * 128 + [255] * 128))

    def tiles(tile, width, height):
        rows = [bytes(row) * (width // len(row) + 1) for row in tile]
        return b"".join(rows[y % len(rows)][:width] for y in range(height))

    def write(name, width, height, pixels, **options):
        (out / f"{name}.bin").write_bytes(header(width, **options) + pixels[:width * height])

    for width, height, options, suffix in ((4000, 3000, {}, "whole"), (4000, 3000, {"mode": STILL}, "still"),
                                           (1920, 1080, {"flags": 11}, "frame")):
        n = width * height
        write(f"noise-{width}x{height}-{suffix}", width, height, rng.randbytes(n), **options)
        write(f"noise-binary-{width}x{height}-{suffix}", width, height, rng.randbytes(n).translate(binary), **options)
        for module in (2, 4):
            write(f"finders-{module}-{width}x{height}-{suffix}", width, height, tiles(finder(module), width, height), **options)
        checker = [[255 * ((x + y) % 2) for x in range(2)] for y in range(2)]
        write(f"checker-1-{width}x{height}-{suffix}", width, height, tiles(checker, width, height), **options)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--large"]:
        large(pathlib.Path(sys.argv[2]))
    else:
        main()
