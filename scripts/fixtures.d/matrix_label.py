"""A matrix symbol on a label, with something over part of it: a symbol drawn by zint, scaled to a
module size in pixels, on a white label turned on a grey ground, with a glare spot that washes part
of it out to white (clipped, as a sensor clips) or a logo printed over its middle (a dark square
with a light ring in it, on a light margin), blurred as a lens, with sensor noise (a fixed seed:
the same picture every time).

Usage: matrix_label.py SYMBOL.png OUT.png --module PX (--glare X Y RADIUS | --logo SIDE) [options];
scripts/make-fixtures says which fixture each call makes and why.
"""
import argparse

import numpy as np
from PIL import Image, ImageFilter


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("symbol", help="the symbol as zint drew it (--scale=0.5: a pixel a module, no quiet zone)")
    parser.add_argument("out", help="the picture to write")
    parser.add_argument("--module", type=int, required=True, help="module size in the picture's pixels")
    cover = parser.add_mutually_exclusive_group(required=True)
    cover.add_argument("--glare", type=float, nargs=3, metavar=("X", "Y", "RADIUS"),
                       help="the spot's centre and radius, shares of the symbol's side")
    cover.add_argument("--logo", type=float, metavar="SIDE", help="the logo's side, a share of the symbol's")
    parser.add_argument("--strength", type=float, default=1.4,
                        help="the spot's light at its centre, a share of what washes it out (over 1: clipped)")
    parser.add_argument("--turn", type=float, default=0, help="degrees the label is turned (anticlockwise)")
    parser.add_argument("--blur", type=float, default=1.0, help="Gaussian sigma of the lens, pixels")
    parser.add_argument("--noise", type=float, default=4.0, help="sensor noise sigma, grey levels")
    parser.add_argument("--seed", type=int, required=True, help="the noise's seed")
    args = parser.parse_args()

    draw(Image.open(args.symbol), args.module, glare=args.glare, logo=args.logo, strength=args.strength, turn=args.turn,
         blur=args.blur, noise=args.noise, seed=args.seed).save(args.out)


def draw(symbol, module, glare=None, logo=None, strength=1.4, turn=0, blur=1.0, noise=4.0, seed=0):
    """The picture: `symbol` as zint drew it (a pixel a module), the rest as the options say."""
    modules = np.array(symbol.convert("L")) >= 128
    side = modules.shape[1] * module
    # The label: dark modules at 40, light ones and a quiet zone of 3 modules at 230.
    quiet = 3 * module
    label = np.full((modules.shape[0] * module + 2 * quiet, side + 2 * quiet), 230.0)
    label[quiet:-quiet, quiet:-quiet] = np.where(np.kron(modules, np.ones((module, module))), 230.0, 40.0)
    ys, xs = np.mgrid[0:label.shape[0], 0:label.shape[1]]
    if glare:  # light added in a soft disc, clipped at white
        x, y, radius = glare
        distance = np.hypot(xs - quiet - x * side, ys - quiet - y * side) / (radius * side)
        light = strength * np.clip(1.25 - distance, 0, 1) ** 0.7 * 255
        label = np.clip(label + light, 0, 255)
    if logo:  # a light margin of a module, a dark square, a light ring in it
        centre, half = quiet + side / 2, logo * side / 2
        reach = np.maximum(abs(xs - centre), abs(ys - centre))
        ring = np.hypot(xs - centre, ys - centre) / half
        label = np.where(reach < half + module, 230.0, label)
        label = np.where(reach < half, np.where((ring > 0.45) & (ring < 0.7), 215.0, 35.0), label)
    picture = Image.new("L", (label.shape[1] + 160, label.shape[0] + 160), 120)
    turned = Image.fromarray(label.astype(np.uint8)).rotate(turn, Image.BILINEAR, expand=True, fillcolor=0)
    mask = Image.new("L", (label.shape[1], label.shape[0]), 255).rotate(turn, Image.BILINEAR, expand=True, fillcolor=0)
    picture.paste(turned, ((picture.width - turned.width) // 2, (picture.height - turned.height) // 2), mask)
    picture = picture.filter(ImageFilter.GaussianBlur(blur))
    noisy = np.array(picture, dtype=float) + np.random.default_rng(seed).normal(0, noise, (picture.height, picture.width))
    return Image.fromarray(np.clip(noisy, 0, 255).round().astype(np.uint8))

if __name__ == "__main__":
    main()
