"""Builds the benchmark photographs of the corpus (see scripts/make-corpus), deterministically
(each picture from its own fixed seed, so two processes build it in any order):

  qr-bench/<category>/NNN.jpg   QR codes in 16 categories (the kinds of picture a public QR
                                benchmark of phone photographs has), 32 pictures each but `many`
                                (16 pictures holding about a third of all the codes)
  code-bench/<kind>/NNN.jpg     EAN-13, PDF417, Aztec and DataMatrix photographs made the same
                                way, and code-free pictures made the same way without a code
  qr-bench/truth.json, code-bench/truth.json
                                per picture: every code's type, payload (raw_base64, text),
                                version and error correction (QR), module size, and its four
                                corners in picture pixels (the symbol's own corners, quiet zone
                                excluded, clockwise from its top-left), and the effects applied.

Usage: make_bench.py SOURCES OUT [--only qr|code] [--jobs N]
"""
import base64
import json
import multiprocessing
import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import bench_camera  # noqa: E402
import bench_marks  # noqa: E402
from bench_codes import ean13_code, weighted, zint_code  # noqa: E402
from bench_sources import ink, paper, picture_size, scene  # noqa: E402
from bench_labels import Placement, damage, label_for, pathological, place_curved, place_flat  # noqa: E402
from bench_categories import labels, many_codes, monitor, scene_effects  # noqa: E402

OUT = sys.argv[2]

QR_CATEGORIES = ["blurred", "bright_spots", "brightness", "close", "curved", "damaged", "glare", "high_version",
                 "many", "monitor", "nominal", "noncompliant", "pathological", "perspective", "rotations", "shadows"]
PICTURES = {category: 32 for category in QR_CATEGORIES} | {"many": 16}
CODE_KINDS = {"ean13": 40, "pdf417": 32, "aztec": 32, "datamatrix": 32, "code_free": 40}


def camera_settings(rng, quality=(72, 95)):
    return {"blur": rng.uniform(0.45, 1.1), "motion": None, "exposure": rng.uniform(0.9, 1.08), "gain": 1.0,
            "read_noise": rng.uniform(0.8, 2.5), "shot_noise": rng.uniform(0.01, 0.06),
            "sharpen": (rng.uniform(1, 2.5), rng.randrange(30, 90)) if rng.random() < 0.2 else None,
            "quality": rng.randrange(*quality) if rng.random() > 0.08 else rng.randrange(40, 70),
            "light": rng.uniform(0.05, 0.3)}


def finish(picture, rng, nrng, cam, path, placements=()):
    bench_marks.lighting(picture, rng, nrng, cam["light"])
    cam["regions"] = cam.get("regions", []) + [p.area for p in placements]
    if cam["sharpen"] and picture.shape[0] * picture.shape[1] > 3.5e6:
        cam["sharpen"] = None  # costs half a second on the larger pictures
    image = bench_camera.camera(picture, rng, nrng, cam["blur"], cam["motion"], cam["exposure"], cam["gain"],
                         cam["read_noise"], cam["shot_noise"], cam["sharpen"], cam.get("regions"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    image.save(path, "JPEG", quality=cam["quality"])
    return image.size


def make_qr_picture(job):
    category, index = job
    rng = random.Random(f"qr-bench/{category}/{index}")
    nrng = np.random.default_rng(rng.randrange(2**63))
    size = picture_size(rng)
    if category == "close":
        size = picture_size(rng, weighted(rng, [(1.2, 3), (2, 3), (3, 2), (5, 1)]))
    picture = scene(rng, size) if category != "many" else None
    cam = camera_settings(rng)
    effects = []
    f = size[0] * rng.uniform(0.75, 1.3)
    if category == "many":
        size, picture, placements = many_codes(rng, nrng, effects)
    elif category == "monitor":
        placements = monitor(rng, nrng, picture, size, f, cam, effects)
    else:
        placements = labels(rng, nrng, picture, size, f, category, cam, effects)
    scene_effects(rng, nrng, picture, size, category, placements, cam, effects)
    path = os.path.join(OUT, "qr-bench", category, f"{index:03d}.jpg")
    finish(picture, rng, nrng, cam, path, placements)
    return entry(path, category, size, placements, effects, cam)


def entry(path, category, size, placements, effects, cam):
    codes = []
    for p in placements:
        code = p.code
        record = {"type": code["type"], "raw_base64": base64.b64encode(code["payload"]).decode(),
                  "text": code["payload"].decode("utf-8", "replace"), "corners": p.corners(),
                  "module": round(float(p.module), 2)}
        for key in ("version", "ec", "form"):
            if key in code:
                record[key] = code[key]
        codes.append(record)
    return {"file": os.path.relpath(path, OUT), "category": category, "width": size[0], "height": size[1],
            "codes": codes, "effects": sorted(set(effects)), "jpeg_quality": cam["quality"]}


CODE_LOOKS = ["nominal", "blurred", "rotations", "perspective", "curved", "damaged", "glare", "bright_spots", "shadows",
              "brightness", "pathological", "close"]


def make_code_picture(job):
    kind, index = job
    rng = random.Random(f"code-bench/{kind}/{index}")
    nrng = np.random.default_rng(rng.randrange(2**63))
    look = rng.choice(CODE_LOOKS)
    size = picture_size(rng)
    picture = scene(rng, size)
    cam = camera_settings(rng)
    effects = [look]
    f = size[0] * rng.uniform(0.75, 1.3)
    placements, taken = [], []
    if kind != "code_free":
        code = ean13_code(rng) if kind == "ean13" else zint_code(rng, kind)
        h, w = code["matrix"].shape
        span = w + (20 if kind == "ean13" else 4)
        hi = min(12 if kind != "ean13" else 6, 0.6 * min(size) / span)
        lo = 1.5 if kind == "ean13" else 2.0
        module = np.exp(rng.uniform(np.log(lo), np.log(max(lo, hi))))
        tilt = min(abs(rng.gauss(0, 12)), 30)
        roll = rng.gauss(0, 8) if rng.random() < 0.8 else rng.uniform(-180, 180)
        style = {"caption": rng.random() < 0.3}
        if look == "rotations":
            roll = rng.uniform(0, 360)
        elif look == "perspective":
            tilt = rng.uniform(35, 60)
        elif look == "close":
            module = rng.uniform(0.5, 0.85) * min(size) / span
        elif look == "pathological":
            style, tilt, module = pathological(rng, style, tilt, module, cam, effects, code)
            if kind == "ean13" and "quiet" in effects:
                style["quiet"] = 3
        if look == "curved":
            placement = place_curved(rng, nrng, picture, size, f, code, module, taken, style, effects)
            placements = [placement] if placement else []
        else:
            texture, tpm, u0, v0 = label_for(rng, code, module, style)
            if look == "damaged":
                damage(rng, nrng, texture, tpm, u0, v0, code, effects)
            box = (u0, v0, u0 + texture.shape[1] / tpm, v0 + texture.shape[0] / tpm)
            found = place_flat(rng, size, f, module, box, tilt, roll, taken)
            if found:
                surface, picture_box, module = found
                area = bench.render(picture, surface, texture, tpm, u0, v0, 2 if module < 4 else 1)
                placement = Placement(code, surface, (0, 0))
                placement.module, placement.box, placement.area = module, picture_box, area
                placements = [placement]
    else:
        # Labels, cans and sheets holding text and pictures but no code, with the same looks.
        for _ in range(rng.randrange(1, 4)):
            texture = np.empty((rng.randrange(60, 240), rng.randrange(80, 320), 4), np.uint8)
            texture[..., :3] = paper(rng)
            texture[..., 3] = 255
            bench.scribble_text(texture, rng, (6, 6, texture.shape[1] - 6, texture.shape[0] - 6), ink(rng), rng.randrange(4, 12))
            if rng.random() < 0.4:
                # A checkerboard or grid of squares: the texture closest to a code.
                cells = rng.randrange(4, 12)
                cell = max(2, min(texture.shape[:2]) // (cells + 2))
                for r in range(cells):
                    for c in range(cells):
                        if (r + c) % 2 == 0 or rng.random() < 0.3:
                            y, x = 4 + r * cell, 4 + c * cell
                            texture[y:y + cell, x:x + cell, :3] = 25
            module = rng.uniform(1, 6)
            box = (0, 0, texture.shape[1] / 4, texture.shape[0] / 4)
            found = place_flat(rng, size, f, module, box, min(abs(rng.gauss(0, 15)), 50), rng.uniform(-30, 30), taken)
            if found:
                surface, picture_box, module = found
                cam.setdefault("regions", []).append(bench.render(picture, surface, texture, 4, 0, 0, 1))
                taken.append(picture_box)
    look_category = look if look not in ("rotations", "perspective", "curved", "damaged", "pathological") else "nominal"
    scene_effects(rng, nrng, picture, size, look_category, placements, cam, effects)
    path = os.path.join(OUT, "code-bench", kind, f"{index:03d}.jpg")
    finish(picture, rng, nrng, cam, path, placements)
    result = entry(path, kind, size, placements, effects, cam)
    result["set"] = kind
    return result


def run(jobs, worker, processes):
    if processes <= 1:
        return [worker(job) for job in jobs]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        return pool.map(worker, jobs, chunksize=1)


def main():
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    processes = int(sys.argv[sys.argv.index("--jobs") + 1]) if "--jobs" in sys.argv else (os.cpu_count() or 2)
    categories = sys.argv[sys.argv.index("--categories") + 1].split(",") if "--categories" in sys.argv else None
    start = time.monotonic()
    if only in (None, "qr"):
        jobs = [(c, i) for c in QR_CATEGORIES if not categories or c in categories for i in range(PICTURES[c])]
        entries = run(jobs, make_qr_picture, processes)
        json.dump({"categories": QR_CATEGORIES, "pictures": entries}, open(os.path.join(OUT, "qr-bench", "truth.json"), "w"),
                  ensure_ascii=False, indent=1)
        codes = sum(len(e["codes"]) for e in entries)
        print(f"qr-bench: {len(entries)} pictures, {codes} codes "
              f"({sum(len(e['codes']) for e in entries if e['category'] == 'many')} in many) in {OUT}/qr-bench")
    if only in (None, "code"):
        jobs = [(k, i) for k, n in CODE_KINDS.items() if not categories or k in categories for i in range(n)]
        entries = run(jobs, make_code_picture, processes)
        os.makedirs(os.path.join(OUT, "code-bench"), exist_ok=True)
        json.dump({"pictures": entries}, open(os.path.join(OUT, "code-bench", "truth.json"), "w"), ensure_ascii=False, indent=1)
        print(f"code-bench: {len(entries)} pictures in {OUT}/code-bench")
    print(f"bench built in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
