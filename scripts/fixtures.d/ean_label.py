"""An EAN-13 fixture: a symbol drawn by zint, scaled to a module width in pixels, on a label in two
tones, turned, pasted on a ground lit by a ramp, blurred as a lens out of focus, averaged down as a
sensor integrates, with sensor noise (a fixed seed: the same picture every time).

Usage: ean_label.py SYMBOL.png OUT.png --module PX [options]; scripts/make-fixtures says which
fixture each call makes and why.
"""
import argparse

import numpy as np
from PIL import Image, ImageFilter

WIDTH, HEIGHT = 640, 480


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("symbol", help="the symbol as zint drew it (--scale=1)")
    parser.add_argument("out", help="the picture to write")
    parser.add_argument("--module", type=float, required=True, help="module width in the picture's pixels")
    parser.add_argument("--bars-height", type=float, default=0.8, help="the symbol's height, a share of its scaled height")
    parser.add_argument("--margin", type=int, default=10, help="the label round the symbol, pixels (of the drawing)")
    parser.add_argument("--tones", type=int, nargs=2, default=(30, 225), metavar=("DARK", "LIGHT"), help="bars and label")
    parser.add_argument("--turn", type=float, help="degrees the label is turned (anticlockwise); none: upright")
    parser.add_argument("--ground", type=float, nargs=2, default=(150, 0), metavar=("LEFT", "RAMP"),
                        help="the ground's grey at the left and how much lighter it is at the right")
    parser.add_argument("--blur", type=float, default=0, help="Gaussian sigma of the lens, pixels (of the drawing)")
    parser.add_argument("--supersample", type=int, default=1, help="drawn this many times larger, then averaged down")
    parser.add_argument("--noise", type=float, required=True, help="sensor noise sigma, grey levels")
    parser.add_argument("--seed", type=int, required=True, help="the noise's seed")
    args = parser.parse_args()

    width, height = WIDTH * args.supersample, HEIGHT * args.supersample
    symbol = Image.open(args.symbol).convert("L")
    # zint draws 113 modules with their quiet zones.
    scale = args.supersample * args.module * 113 / symbol.width
    symbol = symbol.resize((int(symbol.width * scale), int(symbol.height * scale * args.bars_height)), Image.NEAREST)
    dark, light = args.tones
    label = Image.new("L", (symbol.width + 2 * args.margin, symbol.height + 2 * args.margin), light)
    label.paste(symbol.point(lambda v: dark if v < 128 else light), (args.margin, args.margin))
    shape = None
    if args.turn is not None:
        shape = Image.new("L", label.size, 255).rotate(args.turn, expand=True)
        label = label.rotate(args.turn, Image.BICUBIC, expand=True)
    left, ramp = args.ground
    ground = left + np.linspace(0, ramp, width)[None, :] + np.zeros((height, 1))
    picture = Image.fromarray(ground.astype(np.uint8))
    picture.paste(label, ((width - label.width) // 2, (height - label.height) // 2), shape)
    if args.blur:
        picture = picture.filter(ImageFilter.GaussianBlur(args.blur))
    if args.supersample > 1:
        picture = picture.resize((WIDTH, HEIGHT), Image.BOX)
    noisy = np.asarray(picture, np.float32) + np.random.default_rng(args.seed).normal(0, args.noise, (HEIGHT, WIDTH))
    Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8)).save(args.out)


if __name__ == "__main__":
    main()
