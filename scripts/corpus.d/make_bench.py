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
import io
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
from bench import Cylinder, Flat, rotation  # noqa: E402

SOURCES, OUT = sys.argv[1], sys.argv[2]
SKIMAGE = os.path.join(SOURCES, "skimage")
OPENCV = os.path.join(SOURCES, "opencv")

# Photographs the codes are placed in (none holds a code).
SCENES = [f"{SKIMAGE}/{n}" for n in ("astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg", "motorcycle_left.png",
                                     "brick.png", "grass.png", "gravel.png", "page.png", "text.png", "camera.png",
                                     "coins.png", "hubble_deep_field.jpg", "horse.png")] \
    + [f"{OPENCV}/{n}" for n in ("building.jpg", "fruits.jpg", "home.jpg", "baboon.jpg", "board.jpg", "sudoku.png",
                                 "left01.jpg", "notes.png", "starry_night.jpg", "box_in_scene.png", "stuff.jpg",
                                 "aloeL.jpg", "leuvenA.jpg", "graf1.png", "orange.jpg", "butterfly.jpg", "blox.jpg",
                                 "smarties.png", "apple.jpg", "HappyFish.jpg", "pic1.png", "aero1.jpg")]
LOGOS = [f"{OPENCV}/{n}" for n in ("opencv-logo.png", "LinuxLogo.jpg", "WindowsLogo.jpg", "apple.jpg", "orange.jpg")] \
    + [f"{SKIMAGE}/logo.png"]

QR_CATEGORIES = ["blurred", "bright_spots", "brightness", "close", "curved", "damaged", "glare", "high_version",
                 "many", "monitor", "nominal", "noncompliant", "pathological", "perspective", "rotations", "shadows"]
PICTURES = {category: 32 for category in QR_CATEGORIES} | {"many": 16}
CODE_KINDS = {"ean13": 40, "pdf417": 32, "aztec": 32, "datamatrix": 32, "code_free": 40}

# Byte-mode capacity of QR versions 1-40 at level L; M, Q and H hold about these shares of it.
BYTES_L = [17, 32, 53, 78, 106, 134, 154, 192, 230, 271, 321, 367, 425, 458, 520, 586, 644, 718, 792, 858, 929, 1003,
           1091, 1171, 1273, 1367, 1465, 1528, 1628, 1732, 1840, 1952, 2068, 2188, 2303, 2431, 2563, 2699, 2809, 2953]
LEVEL_SHARE = {"L": 1.0, "M": 0.79, "Q": 0.56, "H": 0.43}
WORDS = ["lookout", "kiosk", "camera", "shelf", "order", "ticket", "guest", "room", "door", "parcel", "station", "lot",
         "batch", "item", "price", "menu", "table", "gate", "seat", "event", "check", "in", "out", "the", "of", "and"]
UTF8 = ["Grüße aus Köln – été ✓", "東京タワー 2026年", "Ελληνικά και русский", "naïve café crème brûlée", "価格: 500円",
        "Zürich HB Gleis 7", "¿Dónde está la estación?", "Łódź, Kraków, Gdańsk"]


def weighted(rng, table):
    values, weights = zip(*table)
    return rng.choices(values, weights)[0]


# ---------------------------------------------------------------- symbols

def qr_payload(rng, version, level, small=False):
    """Bytes that fill a share of the version's capacity: URLs, serials, digits, text, UTF-8."""
    capacity = max(4, int(BYTES_L[version - 1] * LEVEL_SHARE[level]))
    size = max(3, int(capacity * rng.uniform(0.35, 0.95)))
    kind = rng.choice(["serial", "serial", "url", "digits"] if small else ["url", "url", "serial", "digits", "text", "text", "utf8"])
    if kind == "url":
        text = f"https://example.com/{rng.choice(WORDS)}/{rng.randrange(10**6)}?id="
        text += "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(max(0, size - len(text))))
    elif kind == "serial":
        # Alphanumeric mode holds more; give it as much as bytes would.
        text = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") for _ in range(size))
    elif kind == "digits":
        text = "".join(rng.choice("0123456789") for _ in range(size))
    elif kind == "text":
        text = ""
        while len(text) < size:
            text += rng.choice(WORDS) + rng.choice([" ", " ", " ", ", ", ". "])
        text = text[:size].strip() or "lookout"
    else:
        text = ""
        while len(text.encode()) < size:
            text += rng.choice(UTF8) + " "
        while len(text.encode()) > size and len(text) > 4:
            text = text[:-1]
        text = text.strip()
    return text.encode("utf-8")


def qr_symbol(payload, level, version):
    """The QR matrix (1 = dark) qrencode draws for the payload at this version or the smallest
    larger one it fits."""
    eight_bit = any(b >= 0x80 for b in payload)
    png = subprocess.run(["qrencode", "-l", level, "-v", str(version), "-s", "1", "-m", "0", "-o", "-"]
                         + (["-8"] if eight_bit else []), input=payload, capture_output=True, check=True).stdout
    return (np.asarray(Image.open(io.BytesIO(png)).convert("L")) < 128).astype(np.uint8)


def qr_code(rng, version, level=None, small=False):
    level = level or rng.choice("LMQH")
    payload = qr_payload(rng, version, level, small)
    matrix = qr_symbol(payload, level, version)
    return {"type": "qr", "payload": payload, "matrix": matrix, "version": (matrix.shape[0] - 17) // 4, "ec": level}


def ean13_code(rng):
    from make_corpus import ean13
    digits, matrix = ean13(rng)
    return {"type": "ean13", "payload": digits.encode(), "matrix": matrix}


def zint_code(rng, kind):
    from make_corpus import kind_payloads, zint_matrix
    # kind_payloads draws 90 jobs, 30 of each kind; take one of the wanted kind.
    jobs = [job for job in kind_payloads(random.Random(rng.randrange(2**32))) if job[0] == kind]
    kind, symbology, given, gs1, expected, form = rng.choice(jobs)
    return {"type": kind, "payload": expected, "matrix": zint_matrix(symbology, given, gs1), "form": form}


def version_general(rng):
    return weighted(rng, [(1, 10), (2, 14), (3, 14), (4, 12), (5, 10), (6, 8), (7, 8), (8, 6), (9, 5), (10, 5),
                          (11, 2), (12, 2), (13, 2), (14, 2)])


# ---------------------------------------------------------------- pictures

def picture_size(rng, megapixels=None):
    mp = megapixels or weighted(rng, [(1.2, 30), (2, 30), (3, 18), (5, 11), (8, 6), (12, 5)])
    aspect = weighted(rng, [(4 / 3, 6), (3 / 4, 3), (16 / 9, 1)])
    width = int(round((mp * 1e6 * aspect) ** 0.5 / 8)) * 8
    return width, int(round(width / aspect / 8)) * 8


def scene(rng, size):
    image = Image.open(rng.choice(SCENES))
    image = (image.convert("RGBA") if image.mode == "P" else image).convert("RGB")
    w, h = size
    if rng.random() < 0.5:
        image = image.transpose(Image.FLIP_LEFT_RIGHT)
    scale = max(w / image.width, h / image.height) * rng.uniform(1, 1.6)
    # Enlarge in two steps from a small crop: as fast, and a photograph's depth of field.
    crop_w, crop_h = min(image.width, int(w / scale) + 2), min(image.height, int(h / scale) + 2)
    x, y = rng.randrange(image.width - crop_w + 1), rng.randrange(image.height - crop_h + 1)
    image = image.crop((x, y, x + crop_w, y + crop_h)).resize((w, h), Image.BILINEAR)
    return np.asarray(image, np.float32)


def paper(rng):
    return weighted(rng, [((238, 236, 230), 5), ((246, 246, 244), 4), ((230, 226, 212), 2), ((250, 240, 200), 1),
                          ((220, 230, 238), 1)])


def ink(rng):
    return weighted(rng, [((22, 22, 24), 6), ((40, 38, 42), 3), ((12, 18, 40), 1)])


def tpm_for(module, shaped=False):
    return int(np.clip(np.ceil(module * 1.3), 6 if shaped else 3, 14))


def symbol_size(code):
    h, w = code["matrix"].shape
    return w, h


class Placement:
    """One symbol placed: the surface and the symbol's position on it (label point of its top-left)."""

    def __init__(self, code, surface, origin, scale=1):
        self.code, self.surface, self.origin, self.scale = code, surface, origin, scale

    def corners(self):
        w, h = symbol_size(self.code)
        if self.code["type"] == "ean13":
            h = 60  # the guard bars' extension is not part of the symbol's box
        w, h = w * self.scale, h * self.scale
        ou, ov = self.origin
        us = np.array([0, w, w, 0], float) + ou
        vs = np.array([0, 0, h, h], float) + ov
        xs, ys = self.surface.forward(us, vs)
        return [[round(float(x), 1), round(float(y), 1)] for x, y in zip(xs, ys)]


def fits(surface, box, size, taken, margin=4):
    """Label box (u0, v0, u1, v1) seen whole inside the picture, in front of the camera, and
    clear of the boxes already taken. Returns its picture box or None."""
    xs, ys = bench.outline(surface, *box, steps=8)
    if not (np.all(np.isfinite(xs)) and np.all(np.isfinite(ys))):
        return None
    s = surface.point(np.array([box[0], box[2], box[2], box[0]], float), np.array([box[1], box[1], box[3], box[3]], float))
    depth = (surface.rot @ s + surface.T[:, None])[2]
    if np.any(depth < 0.2 * surface.f):
        return None
    picture_box = (xs.min(), ys.min(), xs.max(), ys.max())
    if picture_box[0] < margin or picture_box[1] < margin or picture_box[2] > size[0] - margin or picture_box[3] > size[1] - margin:
        return None
    for other in taken:
        if not (picture_box[2] < other[0] or picture_box[0] > other[2] or picture_box[3] < other[1] or picture_box[1] > other[3]):
            return None
    return picture_box


def pose(rng, tilt, roll):
    """A rotation with the label turned `tilt` degrees away from facing the camera, about an axis
    at random in its plane, and `roll` degrees about the optical axis."""
    axis = rng.uniform(0, 2 * np.pi)
    return rotation(roll, tilt * np.cos(axis), tilt * np.sin(axis))


def place_flat(rng, size, f, module, box, tilt, roll, taken, centre=None, shrink=0.85, tries=60):
    """A flat surface showing the label box (label coordinates), its middle at a random place (or
    `centre`), shrunk until it fits. Returns (surface, picture box, module) or None."""
    uc, vc = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    rot = pose(rng, tilt, roll)
    for attempt in range(tries):
        c = centre or (rng.uniform(0.12, 0.88) * size[0], rng.uniform(0.12, 0.88) * size[1])
        surface = Flat(size, f, c, module, rot, uc, vc)
        picture_box = fits(surface, box, size, taken)
        if picture_box is not None:
            return surface, picture_box, module
        if attempt % 6 == 5:
            module *= shrink
    return None


def label_for(rng, code, module, style):
    """The texture of a printed label holding the code: quiet zone, label margin, a caption below
    at times, the style's colours, shapes, damage."""
    w, h = symbol_size(code)
    qr = code["type"] == "qr"
    shaped = style.get("shape", "square") != "square" or style.get("finder") == "rounded"
    tpm = style.get("tpm") or tpm_for(module, shaped)
    quiet = style.get("quiet", 4 if qr else (10 if code["type"] == "ean13" else 2))
    margin = list(style.get("margin", [rng.choice([0, 0.5, 1, 2, 3]) for _ in range(4)]))
    caption = style.get("caption", rng.random() < 0.35)
    if caption:
        margin[3] += max(3, h * rng.uniform(0.15, 0.4))
    paper_colour, ink_colour = style.get("paper", paper(rng)), style.get("ink", ink(rng))
    texture, u0, v0 = bench.label_texture(code["matrix"], tpm, quiet, margin, paper_colour, ink_colour,
                                          style.get("shape", "square"), style.get("finder", "square"), qr,
                                          style.get("inverted", False))
    if caption:
        th, tw = texture.shape[:2]
        line = max(2, tpm * rng.uniform(1.2, 2.5))
        top = (h - v0 + quiet * 0.6) * tpm
        bench.scribble_text(texture, rng, (tpm * 1.5, top, tw - tpm * 1.5, th - tpm), style.get("ink", ink_colour), line)
    return texture, tpm, u0, v0


def damage(rng, nrng, texture, tpm, u0, v0, code, effects):
    """Scratches, stains, missing pieces and tears on the label texture, mostly within what error
    correction mends; names them in `effects`."""
    th, tw = texture.shape[:2]
    w, h = symbol_size(code)
    sx0, sy0 = -u0 * tpm, -v0 * tpm
    sw, sh = w * tpm, h * tpm
    kinds = rng.sample(["scratches", "stain", "missing", "torn", "worn"], rng.choice([1, 1, 1, 2, 2]))
    for kind in kinds:
        if kind == "scratches":
            light = rng.random() < 0.6
            bench.scratch(texture, rng, nrng, rng.randrange(2, 9), tpm * rng.uniform(0.15, 0.55),
                          (235, 235, 230) if light else (40, 35, 30))
        elif kind == "stain":
            colour = rng.choice([(150, 110, 60), (120, 120, 130), (90, 130, 90), (170, 140, 100)])
            bench.stain(texture, nrng, rng.randrange(3, 9), rng.uniform(0.5, 0.72), colour, rng.uniform(0.4, 0.85))
        elif kind == "missing":
            for _ in range(rng.randrange(1, 3)):
                r = rng.uniform(0.04, 0.12) * min(sw, sh)
                centre = (sx0 + rng.uniform(0.1, 0.9) * sw, sy0 + rng.uniform(0.1, 0.9) * sh)
                fill = None if rng.random() < 0.5 else rng.choice([(245, 245, 240), (30, 30, 30), (200, 60, 50)])
                bench.hole(texture, rng, centre, r, 0.4, fill)
        elif kind == "torn":
            bench.tear(texture, rng, rng.uniform(0.03, 0.12) * min(sw, sh) + min(-u0, -v0) * tpm)
        else:
            # Worn print: ink rubbed off in a broad patch.
            mask = bench.blob_mask(nrng, texture.shape[:2], rng.randrange(2, 6), rng.uniform(0.5, 0.7))[..., None]
            rgb = texture[..., :3].astype(np.float32)
            texture[..., :3] = (rgb * (1 - mask * 0.75) + np.array([230, 228, 220], np.float32) * mask * 0.75).astype(np.uint8)
        effects.append(kind)


def camera_settings(rng, quality=(72, 95)):
    return {"blur": rng.uniform(0.45, 1.1), "motion": None, "exposure": rng.uniform(0.9, 1.08), "gain": 1.0,
            "read_noise": rng.uniform(0.8, 2.5), "shot_noise": rng.uniform(0.01, 0.06),
            "sharpen": (rng.uniform(1, 2.5), rng.randrange(30, 90)) if rng.random() < 0.2 else None,
            "quality": rng.randrange(*quality) if rng.random() > 0.08 else rng.randrange(40, 70),
            "light": rng.uniform(0.05, 0.3)}


def finish(picture, rng, nrng, cam, path, placements=()):
    bench.lighting(picture, rng, nrng, cam["light"])
    cam["regions"] = cam.get("regions", []) + [p.area for p in placements]
    if cam["sharpen"] and picture.shape[0] * picture.shape[1] > 3.5e6:
        cam["sharpen"] = None  # costs half a second on the larger pictures
    image = bench.camera(picture, rng, nrng, cam["blur"], cam["motion"], cam["exposure"], cam["gain"],
                         cam["read_noise"], cam["shot_noise"], cam["sharpen"], cam.get("regions"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    image.save(path, "JPEG", quality=cam["quality"])
    return image.size


# ---------------------------------------------------------------- categories

def plain_codes(rng, category):
    """The codes of a picture of a category other than `many`, `monitor` and `close`."""
    count = weighted(rng, [(1, 60), (2, 20), (3, 10), (4, 5), (5, 3), (6, 2)])
    if category in ("high_version", "curved", "pathological"):
        count = weighted(rng, [(1, 80), (2, 20)])
    codes = []
    for _ in range(count):
        if category == "high_version":
            codes.append(qr_code(rng, rng.randrange(15, 41)))
        elif category == "damaged":
            codes.append(qr_code(rng, version_general(rng), rng.choice("MQHH")))
        elif category == "noncompliant":
            codes.append(qr_code(rng, version_general(rng), rng.choice("MQHH")))
        else:
            codes.append(qr_code(rng, version_general(rng)))
    return codes


# Per category: module sizes (pixels: a share `small` of the codes from `module`'s low end to 2.8,
# the rest log-uniform over it) and the lens blur as a share of a module (a phone focused on the
# background, or a code across the room: the softer a small code, the sooner a reader without
# local thresholds loses it, while zxing-cpp's still reads it).
LOOKS = {"nominal": {"module": (1.9, 9), "blur": (0.2, 0.36), "small": 0.5},
         "rotations": {"module": (1.9, 9), "blur": (0.2, 0.36), "small": 0.5},
         "shadows": {"module": (1.9, 9), "blur": (0.2, 0.34), "small": 0.45},
         "high_version": {"module": (1.9, 5), "blur": (0.2, 0.34), "small": 0.5},
         "glare": {"module": (2.0, 9), "blur": (0.18, 0.32), "small": 0.35},
         "bright_spots": {"module": (2.0, 9), "blur": (0.2, 0.34), "small": 0.4},
         "brightness": {"module": (2.0, 9), "blur": (0.18, 0.32), "small": 0.4},
         "perspective": {"module": (2.2, 9), "blur": (0.18, 0.32), "small": 0.35},
         "curved": {"module": (2.2, 9), "blur": (0.18, 0.3), "small": 0.3},
         "damaged": {"module": (2.4, 9), "blur": (0.2, 0.34), "small": 0.35},
         "noncompliant": {"module": (2.6, 9), "blur": (0.15, 0.3), "small": 0.3},
         "pathological": {"module": (1.6, 8), "blur": (0.1, 0.22), "small": 0},
         "blurred": {"module": (2.4, 10), "blur": (0.1, 0.2), "small": 0},
         "close": {"module": (2, 10), "blur": (0.1, 0.2), "small": 0},
         "many": {"module": (2.6, 5), "blur": (0.2, 0.3), "small": 0}}


def module_range(category, size, code):
    n = symbol_size(code)[0] + 8
    # Large enough to read at all, at most about half the picture across.
    top = min(15, 0.55 * min(size) / n)
    lo, hi = LOOKS[category]["module"]
    return lo, min(hi, top)


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


def labels(rng, nrng, picture, size, f, category, cam, effects):
    """Printed labels, one per code, posed for the category, drawn into the picture."""
    codes = plain_codes(rng, category) if category != "close" else [qr_code(rng, rng.randrange(2, 11))]
    placements, taken = [], []
    for code in codes:
        style = {}
        tilt = abs(rng.gauss(0, 12))
        tilt = min(tilt, 35)
        roll = rng.gauss(0, 8) if rng.random() < 0.85 else rng.uniform(-180, 180)
        lo, hi = module_range(category, size, code)
        if hi < lo:
            continue
        # Half the codes small (far away, or small on the picture), half anywhere up to the top.
        small = rng.random() < LOOKS[category]["small"]
        module = rng.uniform(lo, min(hi, 2.8)) if small else np.exp(rng.uniform(np.log(lo), np.log(hi)))
        centre = None
        if category == "rotations":
            roll, tilt = rng.uniform(0, 360), min(tilt, 15)
        elif category == "perspective":
            tilt = rng.uniform(30, 58)
            f = size[0] * rng.uniform(0.6, 1.0)
            module = max(module, 3.5)
        elif category == "close":
            w = symbol_size(code)[0]
            module = rng.uniform(0.55, 0.92) * min(size) / w
            centre = (size[0] * rng.uniform(0.4, 0.6), size[1] * rng.uniform(0.4, 0.6))
            style["quiet"] = rng.choice([4, 4, 3, 2])
            style["margin"] = [4, 4, 4, 4]
            style["caption"] = False
            tilt = min(tilt, 20)
        elif category == "pathological":
            style, tilt, module = pathological(rng, style, tilt, module, cam, effects, code)
        elif category == "noncompliant":
            noncompliant(rng, style, code, effects)
        elif category == "high_version":
            tilt = min(tilt, 25)
        elif category in ("glare", "bright_spots"):
            style["paper"] = (246, 246, 244)
        if category == "curved":
            placement = place_curved(rng, nrng, picture, size, f, code, module, taken, style, effects)
            if placement:
                placements.append(placement)
            continue
        texture, tpm, u0, v0 = label_for(rng, code, module, style)
        if category == "damaged":
            damage(rng, nrng, texture, tpm, u0, v0, code, effects)
        if style.get("logo"):
            logo(rng, texture, tpm, u0, v0, code, style["logo"])
        box = (u0, v0, u0 + texture.shape[1] / tpm, v0 + texture.shape[0] / tpm)
        found = place_flat(rng, size, f, module, box, tilt, roll, taken, centre)
        if found is None:
            continue
        surface, picture_box, module = found
        ss = 2 if module < 4 else 1
        area = bench.render(picture, surface, texture, tpm, u0, v0, ss)
        taken.append(picture_box)
        placement = Placement(code, surface, (0, 0))
        placement.module, placement.box, placement.area = module, picture_box, area
        placements.append(placement)
    return placements


def pathological(rng, style, tilt, module, cam, effects, code):
    """Extreme cases, one or two at once: no quiet zone before a dark or busy ground, very low
    contrast, strong perspective with blur, tiny modules, heavy compression."""
    kinds = rng.sample(["quiet", "contrast", "perspective_blur", "tiny", "compression"], rng.choice([1, 2, 2]))
    for kind in kinds:
        if kind == "quiet":
            style["quiet"] = rng.choice([0, 0.5, 1, 1])
            style["margin"] = [0, 0, 0, 0]
            style["caption"] = False
        elif kind == "contrast":
            base = rng.randrange(120, 200)
            style["paper"] = (base + 25, base + 22, base + 18)
            style["ink"] = (base - rng.randrange(20, 45),) * 3
        elif kind == "perspective_blur":
            tilt = rng.uniform(50, 66)
            module = max(module, 4)
            cam["blur"] = max(cam["blur"], module * rng.uniform(0.15, 0.3))
        elif kind == "tiny":
            module = rng.uniform(1.6, 2.0)
            cam["read_noise"] = rng.uniform(2, 5)
        else:
            cam["quality"] = rng.randrange(18, 35)
        effects.append(kind)
    return style, tilt, module


def noncompliant(rng, style, code, effects):
    """Designer codes: colours, dots and rounded modules, rounded finder eyes, light on dark, a logo
    in the middle (within error correction), low-contrast colour pairs."""
    kinds = rng.sample(["colour", "dots", "rounded", "finder", "inverted", "logo", "pastel"], rng.choice([1, 2, 2, 3]))
    if "inverted" in kinds and "pastel" in kinds:
        kinds.remove("pastel")
    for kind in kinds:
        if kind == "colour":
            style["ink"] = rng.choice([(20, 40, 120), (140, 20, 30), (20, 100, 50), (90, 30, 110), (200, 80, 20)])
            if rng.random() < 0.4:
                style["paper"] = rng.choice([(250, 235, 150), (200, 225, 250), (250, 210, 210)])
        elif kind == "dots":
            style["shape"] = rng.choice(["dot", "dot", "small_dot", "diamond"])
        elif kind == "rounded":
            style["shape"] = "rounded"
        elif kind == "finder":
            style["finder"] = "rounded"
        elif kind == "inverted":
            style["inverted"] = True
            style["ink"], style["paper"] = (30, 30, 34), (240, 240, 236)
        elif kind == "logo":
            style["logo"] = rng.uniform(0.05, {"L": 0.05, "M": 0.09, "Q": 0.14, "H": 0.2}[code["ec"]])
        else:
            style["paper"] = (235, 240, 250)
            style["ink"] = rng.choice([(120, 150, 210), (210, 140, 150), (150, 190, 140)])
        effects.append(kind)


def logo(rng, texture, tpm, u0, v0, code, share):
    """A picture over the middle of the symbol covering `share` of its area, on a white plate."""
    w, h = symbol_size(code)
    side = int(np.sqrt(share * w * h) * tpm)
    if side < 4:
        return
    image = Image.open(rng.choice(LOGOS)).convert("RGB").resize((side, side), Image.BICUBIC)
    plate = int(side * 1.12)
    cx, cy = int((-u0 + w / 2) * tpm), int((-v0 + h / 2) * tpm)
    texture[cy - plate // 2:cy - plate // 2 + plate, cx - plate // 2:cx - plate // 2 + plate, :3] = 250
    texture[cy - side // 2:cy - side // 2 + side, cx - side // 2:cx - side // 2 + side, :3] = np.asarray(image)


def place_curved(rng, nrng, picture, size, f, code, module, taken, style, effects):
    """The label round a can or bottle: wrapped 30-115 degrees of arc across the symbol, lit from
    one side with a specular band, the can's body above and below."""
    w, h = symbol_size(code)
    wrap = rng.uniform(0.2, 0.95)
    radius = w / wrap
    phi0 = rng.uniform(-0.35, 0.35)
    if abs(phi0) + wrap / 2 > 1.25:
        phi0 = np.sign(phi0) * (1.25 - wrap / 2)
    style.setdefault("margin", [rng.uniform(1, 4), rng.uniform(1, 3), rng.uniform(1, 4), rng.uniform(1, 3)])
    texture, tpm, u0, v0 = label_for(rng, code, module, style)
    body_colour = rng.choice([(190, 30, 35), (200, 200, 205), (30, 90, 160), (40, 130, 70), (235, 235, 230), (60, 50, 40)])
    extra = rng.uniform(0.3, 1.2) * h
    body = (body_colour, v0 - extra, v0 + texture.shape[0] / tpm + extra)
    roll = rng.gauss(0, 8) if rng.random() < 0.7 else 90 + rng.gauss(0, 8)
    rot = pose(rng, rng.uniform(0, 18), roll)
    light = rng.uniform(-1.0, 1.0)
    uc, vc = w / 2, h / 2
    for attempt in range(60):
        c = (rng.uniform(0.15, 0.85) * size[0], rng.uniform(0.15, 0.85) * size[1])
        surface = Cylinder(size, f, c, module, rot, uc - phi0 * radius, vc, radius, 0.0, light,
                           rng.uniform(0.15, 0.7), rng.uniform(0.08, 0.25))
        # The label's centre at phi0: shift the label point facing the camera.
        reach = radius * np.pi / 2
        box = (surface.uc - reach, body[1], surface.uc + reach, body[2])
        xs, ys = bench.outline(surface, *box, steps=8)
        picture_box = fits(surface, (u0, v0, u0 + texture.shape[1] / tpm, v0 + texture.shape[0] / tpm), size, taken)
        if picture_box is not None:
            area = bench.render(picture, surface, texture, tpm, u0, v0, 2 if module < 4 else 1, body=body)
            whole = (max(0, xs.min()), max(0, ys.min()), min(size[0], xs.max()), min(size[1], ys.max()))
            taken.append(whole)
            placement = Placement(code, surface, (0, 0))
            placement.module, placement.box, placement.area = module, picture_box, area
            effects.append(f"wrap {int(np.degrees(wrap) // 15 * 15)}+ deg")
            return placement
        if attempt % 6 == 5:
            module *= 0.85
    return None


def many_codes(rng, nrng, effects):
    """A sheet of stickers or a shelf of labels: 10 to 60 small codes in a grid, some touching,
    in a picture large enough for modules of 2.6 to 5 pixels. Returns the picture's size, the
    picture and the placements."""
    count = int(rng.triangular(10, 61, 12))
    aspect = rng.choice([4 / 3, 4 / 3, 3 / 4, 16 / 9])
    aspect = aspect * rng.uniform(0.8, 1.25)
    cols = max(2, int(round((count * aspect) ** 0.5)))
    rows = int(np.ceil(count / cols))
    same = rng.random() < 0.6
    version = rng.choice([1, 1, 2, 2, 3, 4])
    shelf = rng.random() < 0.2
    quiet = rng.choice([4, 4, 3, 2]) if not shelf else rng.choice([2, 3, 4])
    gap = rng.choice([0, 0, 0.5, 1, 2, 4]) if not shelf else rng.uniform(1, 5)
    effects.append("shelf" if shelf else "sheet")
    if gap == 0:
        effects.append("touching")
    codes = [qr_code(rng, version if same else rng.choice([1, 1, 2, 2, 3, 4, 5]), small=True) for _ in range(count)]
    n = max(symbol_size(c)[0] for c in codes)
    cell_w = n + 2 * quiet + gap
    caption = shelf or rng.random() < 0.3
    cell_h = n + 2 * quiet + gap + (n * 0.45 if caption else 0) + (2 if shelf else 0)
    border = rng.uniform(2, 8)
    width_modules = cols * cell_w + 2 * border
    height_modules = rows * cell_h + 2 * border
    # The sheet takes 55-95% of the frame at the modules wanted: the frame follows (12 MP at most).
    fill = rng.uniform(0.55, 0.95)
    module = rng.uniform(2.6, 5)
    frame_aspect = rng.choice([4 / 3, 3 / 4]) if rng.random() < 0.9 else 16 / 9
    width = max(width_modules * module / fill, height_modules * module / fill * frame_aspect)
    width = min(width, (12e6 * frame_aspect) ** 0.5)
    size = (int(width / 8) * 8, int(width / frame_aspect / 8) * 8)
    module = fill * min(size[0] / width_modules, size[1] / height_modules)
    picture = scene(rng, size)
    f = size[0] * rng.uniform(0.75, 1.3)
    tpm = tpm_for(module)
    sheet_colour = paper(rng)
    sheet = np.empty((int(np.ceil(height_modules * tpm)), int(np.ceil(width_modules * tpm)), 4), np.uint8)
    sheet[..., :3] = sheet_colour if not shelf else (70, 72, 78)
    sheet[..., 3] = 255
    label_ink = ink(rng)
    origins = []
    for k, code in enumerate(codes):
        r, c = divmod(k, cols)
        cu = border + c * cell_w + gap / 2
        cv = border + r * cell_h + gap / 2
        w = symbol_size(code)[0]
        off = (n - w) / 2
        style = {"quiet": quiet + off, "margin": [0, 0, 0, (n * 0.45 if caption else 0)], "caption": False,
                 "paper": sheet_colour if not shelf else rng.choice([(248, 246, 240), (250, 235, 120), (245, 245, 245)]),
                 "ink": label_ink, "tpm": tpm}
        texture, _, u0, v0 = label_for(rng, code, module, style)
        if caption:
            th, tw = texture.shape[:2]
            bench.scribble_text(texture, rng, (tpm, (n + 2 * quiet + 2 * off) * tpm, tw - tpm, th - tpm // 2), label_ink,
                                max(2, tpm * rng.uniform(1.5, 3)))
        paste_u, paste_v = cu + quiet + off, cv + quiet + off
        bench.paste_texture(sheet, tpm, texture, paste_u, paste_v, u0, v0)
        origins.append((paste_u, paste_v))
    box = (0, 0, width_modules, height_modules)
    tilt = abs(rng.gauss(0, 14))
    roll = rng.gauss(0, 10) if rng.random() < 0.8 else rng.choice([90, 180, -90]) + rng.gauss(0, 5)
    centre = (size[0] * rng.uniform(0.4, 0.6), size[1] * rng.uniform(0.4, 0.6))
    found = place_flat(rng, size, f, module, box, tilt, roll, [], centre, shrink=0.92)
    if found is None:
        return size, picture, []
    surface, picture_box, module = found
    area = bench.render(picture, surface, sheet, tpm, 0, 0, 2 if module < 4 else 1)
    placements = []
    for code, origin in zip(codes, origins):
        p = Placement(code, surface, origin)
        p.module = module
        xs, ys = zip(*p.corners())
        p.box, p.area = (min(xs), min(ys), max(xs), max(ys)), area
        placements.append(p)
    return size, picture, placements


def monitor(rng, nrng, picture, size, f, cam, effects):
    """A code shown on a screen: a page with the code on a display of RGB stripes and a black
    matrix, seen at an angle; its own light (gamma, over-exposure), the room reflected in the glass."""
    code = qr_code(rng, version_general(rng))
    n = symbol_size(code)[0]
    k = rng.choice([2, 3, 3, 4, 4, 5, 6, 8])
    quiet = rng.choice([4, 4, 4, 2, 1])
    code_px = n * k
    page_w = int(code_px + 2 * quiet * k + rng.uniform(0.2, 1.5) * code_px)
    page_h = int(code_px + 2 * quiet * k + rng.uniform(0.3, 1.2) * code_px)
    dark_mode = rng.random() < 0.2
    page = np.full((page_h, page_w, 3), (28, 28, 32) if dark_mode else (250, 250, 250), np.uint8)
    cx = rng.randrange(quiet * k, page_w - code_px - quiet * k + 1)
    cy = rng.randrange(quiet * k, page_h - code_px - quiet * k + 1)
    # UI: a title bar and text around the code.
    ui = Image.fromarray(page)
    draw = ImageDraw.Draw(ui)
    bar = rng.randrange(8, 24)
    draw.rectangle([0, 0, page_w, bar], fill=rng.choice([(40, 90, 200), (60, 60, 60), (200, 60, 40)]))
    page = np.asarray(ui).copy()
    text = np.dstack([page, np.full(page.shape[:2], 255, np.uint8)])
    bench.scribble_text(text, rng, (4, bar + 6, page_w - 4, page_h - 4), (90, 90, 90) if not dark_mode else (180, 180, 180), rng.randrange(5, 10))
    page = text[..., :3].copy()
    page[cy - quiet * k:cy + code_px + quiet * k, cx - quiet * k:cx + code_px + quiet * k] = (250, 250, 250)
    page[cy:cy + code_px, cx:cx + code_px] = np.where(np.kron(code["matrix"], np.ones((k, k), np.uint8))[..., None] == 1,
                                                     np.array([15, 15, 15], np.uint8), np.array([250, 250, 250], np.uint8))
    gamma = rng.uniform(0.7, 1.6)
    page = (255 * (page / 255.0) ** gamma).astype(np.uint8)
    # The panel: 6 texels a screen pixel, R G B stripes two texels each, one texel row of black matrix.
    tpm = 6
    stripes = np.zeros((page_h * tpm, page_w * tpm, 3), np.uint8)
    for b in range(6):
        stripes[:, b::6, b // 2] = np.repeat(page[:, :, b // 2], tpm, axis=0)
    stripes[tpm - 1::tpm] = 0
    bezel = rng.randrange(6, 30)
    panel = np.full(((page_h + 2 * bezel) * tpm, (page_w + 2 * bezel) * tpm, 4), 255, np.uint8)
    panel[..., :3] = rng.choice([(18, 18, 20), (35, 35, 38), (200, 200, 205)])
    panel[bezel * tpm:(bezel + page_h) * tpm, bezel * tpm:(bezel + page_w) * tpm, :3] = stripes
    # Screen pixel pitch in picture pixels, so that a module is 1.6-15 pixels.
    pitch = np.exp(rng.uniform(np.log(max(0.6, 1.6 / k)), np.log(min(3.0, 15 / k))))
    box = (-bezel, -bezel, page_w + bezel, page_h + bezel)
    tilt = abs(rng.gauss(0, 15))
    roll = rng.gauss(0, 8) if rng.random() < 0.85 else rng.uniform(-180, 180)
    found = place_flat(rng, size, f, pitch, box, tilt, roll, [], None, shrink=0.9)
    if found is None:
        return []
    surface, picture_box, pitch = found
    gain = rng.uniform(2.2, 3.6)
    # The screen's light, added: the panel rendered onto black, scaled, with the room reflected in its glass.
    emitted = np.zeros_like(picture)
    area = bench.render(emitted, surface, panel, tpm, -bezel, -bezel, 2, emissive=True)
    x0, y0, x1, y1 = area
    xs, ys = bench.outline(surface, *box, steps=2)
    mask_image = Image.new("L", (x1 - x0, y1 - y0), 0)
    ImageDraw.Draw(mask_image).polygon([(x - x0, y - y0) for x, y in zip(xs, ys)], fill=255)
    mask = np.asarray(mask_image, np.float32)[..., None] / 255
    backdrop = picture[y0:y1, x0:x1]
    reflection = np.asarray(bench.gaussian(Image.fromarray(backdrop.astype(np.uint8)), rng.uniform(4, 20)), np.float32)
    picture[y0:y1, x0:x1] = backdrop * (1 - mask) + (emitted[y0:y1, x0:x1] * gain + reflection * rng.uniform(0.03, 0.2)) * mask
    cam["blur"] = rng.uniform(0.5, 1.6)
    cam["exposure"] = rng.uniform(0.8, 1.2)
    effects += ["screen", f"{k} px a module", "dark mode" if dark_mode else "light mode"]
    # The panel's plane counts screen pixels: the symbol is k of them a module.
    placement = Placement(code, surface, (cx, cy), scale=k)
    placement.module = pitch * k
    xs, ys = zip(*placement.corners())
    placement.box, placement.area = (min(xs), min(ys), max(xs), max(ys)), area
    return [placement]


def scene_effects(rng, nrng, picture, size, category, placements, cam, effects):
    """The effects a category is about, over its codes: blur, light, shadows, glare, spots."""
    boxes = [p.box for p in placements] or [(size[0] * 0.3, size[1] * 0.3, size[0] * 0.7, size[1] * 0.7)]
    modules = [p.module for p in placements] or [4]
    module = float(np.median(modules))
    if category in LOOKS:
        cam["blur"] = float(np.clip(module * rng.uniform(*LOOKS[category]["blur"]), cam["blur"], 3.0))
    if category == "blurred":
        if rng.random() < 0.65:
            cam["blur"] = module * rng.uniform(0.28, 0.42)
            effects.append("defocus")
        if rng.random() < 0.4 or "defocus" not in effects:
            cam["motion"] = (module * rng.uniform(0.5, 1.1), rng.uniform(0, np.pi))
            effects.append("motion")
    elif category == "close":
        cam["blur"] = module * rng.uniform(0.1, 0.35)
        cam["read_noise"] = rng.uniform(1.5, 6)
        effects.append("defocus")
    elif category == "shadows":
        for box in boxes[:3]:
            hard = rng.random() < 0.5
            bench.shadow(picture, rng, nrng, box, hard, rng.uniform(0.3, 0.7))
            effects.append("hard shadow" if hard else "soft shadow")
    elif category == "glare":
        for box in boxes[:3]:
            bench.glare(picture, rng, box, rng.uniform(0.25, 0.8), rng.uniform(0.08, 0.22), rng.uniform(0.03, 0.15))
        effects.append("glare")
    elif category == "bright_spots":
        for p in placements[:3]:
            bench.spots(picture, rng, p.box, rng.randrange(1, 6), p.module * rng.uniform(0.5, 1.8), rng.uniform(0.8, 3))
        effects.append("spots")
    elif category == "brightness":
        if rng.random() < 0.5:
            cam["exposure"] = rng.uniform(0.12, 0.35)
            cam["gain"] = rng.uniform(1.5, 3)
            cam["read_noise"] = rng.uniform(1.5, 4)
            effects.append("under-exposed")
        else:
            cam["exposure"] = rng.uniform(1.2, 1.9)
            bench.bloom(picture, module * rng.uniform(0.5, 1.5), rng.uniform(0.1, 0.5))
            effects.append("over-exposed")
    elif category == "high_version":
        cam["blur"] = rng.uniform(0.4, 0.9)
    elif category == "nominal":
        cam["blur"] = min(cam["blur"], 0.8)
    if category in ("glare", "bright_spots") and rng.random() < 0.5:
        cam["exposure"] *= rng.uniform(1.0, 1.3)


# ---------------------------------------------------------------- EAN-13, PDF417, Aztec, DataMatrix, code-free

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


# ---------------------------------------------------------------- main

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
