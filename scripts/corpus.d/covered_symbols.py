#!/usr/bin/env python3
"""Matrix symbols with something over part of them (scripts/fixtures.d/matrix_label.py draws each):
40 labels of modules of 3 to 6 px, turned by up to 30 degrees, blurred by a quarter of a module or
so, with sensor noise. With --cover glare (the default): DataMatrix symbols of 16 x 16 to 32 x 32
modules, a glare spot clipped white over 15 to 30 % of the symbol's side around a point near its
middle. With --cover logo: QR codes of versions 2 to 10 or so, error correction M, Q or H, a logo over
their middle of 20 to 50 % of their side. The sets where erasures (Sources/CZXing/SoftMatrix.hpp)
were measured: zxing-cpp finds most of these symbols but takes the covered modules for guesses.
Read by `lookout scan --types datamatrix` (or qr) beside zxing-cpp asked for the same. Fixed seeds.

Makes the pictures in OUT (default .cache/corpus/covered) and reads them as small_ean.py
does (ean_sets.py): run it with .cache/accuracy-venv/bin/python.

Usage: scripts/corpus.d/covered_symbols.py [--cover glare|logo] [--lookout PATH] [--out DIR] [--seed S]
                                           [-- scan options]"""
import os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures.d"))
import ean_sets
import matrix_label

args = ean_sets.arguments(__doc__, ".cache/corpus/covered", seeded=True,
                          options=[("--cover", {"choices": ["glare", "logo"], "default": "glare",
                                                "help": "glare on DataMatrix, or a logo on QR"})])
rng = random.Random(args.seed)
words = "lot batch serial expiry order ship part item box pallet label".split()
truth = []
for index in range(40):
    text = " ".join(rng.choice(words) for _ in range(rng.randint(2, 8))) + f" {rng.randint(1000, 999999)}"
    if args.cover == "glare":
        kind, options = "DATAMATRIX", []
    else:
        kind, options = "QRCODE", [f"--secure={rng.choice([2, 3, 4])}"]
        text += " " + " ".join(rng.choice(words) for _ in range(rng.randint(0, 24)))
    symbol = ean_sets.matrix_symbol(kind, text, args.out, options)
    module = rng.choice([3, 4, 5, 6])
    turn, blur = rng.uniform(-30, 30), rng.uniform(0.6, 1.4) * module / 4
    if args.cover == "glare":
        radius, x, y, strength = rng.uniform(0.15, 0.3), rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7), rng.uniform(1.1, 1.6)
        picture = matrix_label.draw(symbol, module, glare=(x, y, radius), strength=strength, turn=turn, blur=blur, seed=index)
        size = f"glare {radius:.2f} of its side"
    else:
        side = rng.uniform(0.2, 0.5)
        picture = matrix_label.draw(symbol, module, logo=side, turn=turn, blur=blur, seed=index)
        size = f"logo {side:.2f} of its side"
    file = os.path.join(args.out, f"{args.cover}{index:03d}.png")
    picture.save(file)
    truth.append({"file": file, "text": text, "modules": symbol.width, "module": module, "cover": size})

kind = "DataMatrix" if args.cover == "glare" else "QRCode"
ean_sets.evaluate(args, truth, lambda e: f"{e['modules']} modules of {e['module']} px, {e['cover']}",
                  formats=(kind,), types="datamatrix" if args.cover == "glare" else "qr", texts=lambda e: {e["text"]})
