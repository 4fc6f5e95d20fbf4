#!/usr/bin/env python3
"""PDF417 labels leaning: 40 tickets and boarding passes photographed at an angle, the symbol's
rows turned by 20 to 70 degrees either way (a lean zxing-cpp's row scans do not cross), modules
of 2 to 4 px, blurred by a third of a module or so, with sensor noise; half of them under a glare
spot clipped white across the symbol, which breaks its rows' texture into pieces
(scripts/fixtures.d/matrix_label.py draws each). The set where the places of rows leaning alike
were measured (docs/accuracy.md). Read by `lookout scan --types pdf417` beside zxing-cpp asked for
the same. Fixed seeds.

Makes the pictures in OUT (default .cache/corpus/leaning) and reads them as small_ean.py does
(ean_sets.py): run it with .cache/accuracy-venv/bin/python.

Usage: scripts/corpus.d/leaning_pdf417.py [--upright] [--lookout PATH] [--out DIR] [--seed S] [-- scan options]"""
import os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures.d"))
import ean_sets
import matrix_label
import numpy as np
from PIL import Image, ImageFilter


def leaning(symbol, module, glare, strength, turn, blur, seed):
    """The label drawn upright (matrix_label.draw, sharp and clean), then turned on a ground
    large enough for it whole, blurred and noisy."""
    upright = matrix_label.draw(symbol, module, glare=glare, strength=strength, blur=0, noise=0)
    turned = upright.rotate(turn, Image.BILINEAR, expand=True, fillcolor=120).filter(ImageFilter.GaussianBlur(blur))
    noisy = np.array(turned, dtype=float) + np.random.default_rng(seed).normal(0, 4, (turned.height, turned.width))
    return Image.fromarray(np.clip(noisy, 0, 255).round().astype(np.uint8))


args = ean_sets.arguments(__doc__, ".cache/corpus/leaning", seeded=True,
                          flags=[("--upright", "the same labels not turned: which misses are out of any reader's reach")])
rng = random.Random(args.seed)
words = "row ticket entry hall seat gate order lookout event pass".split()
truth = []
for index in range(40):
    text = " ".join(rng.choice(words) for _ in range(rng.randint(2, 6))) + f" #{rng.randint(1000, 999999)}"
    level = rng.choice([3, 4, 5])
    symbol = ean_sets.matrix_symbol("PDF417", text, args.out, [f"--secure={level}"])
    module = rng.choice([2, 3, 4])
    turn = rng.choice([-1, 1]) * rng.uniform(20, 70)
    turn = 0 if args.upright else turn
    blur = rng.uniform(0.8, 1.4) * module / 3
    glare = None
    if index % 2:
        # Across the symbol's middle third, as a lamp over a glossy ticket.
        glare = (rng.uniform(0.35, 0.65), rng.uniform(0.3, 0.7) * symbol.height / symbol.width, rng.uniform(0.12, 0.2))
    picture = leaning(symbol, module, glare, rng.uniform(1.1, 1.5), turn, blur, index)
    file = os.path.join(args.out, f"leaning{index:03d}.png")
    picture.save(file)
    truth.append({"file": file, "text": text, "modules": symbol.width, "module": module, "level": level, "turn": round(turn, 1),
                  "glare": glare is not None})

ean_sets.evaluate(args, truth, lambda e: f"{e['modules']} modules of {e['module']} px, level {e['level']}, turned {e['turn']} degrees"
                  + (", glare" if e["glare"] else ""), formats=("PDF417",), types="pdf417", texts=lambda e: {e["text"]})
