"""Builds Lookout's development corpus (see scripts/make-corpus). Deterministic: fixed seeds."""
import base64
import io
import json
import os
import random
import subprocess
import sys

import numpy as np
from PIL import Image, ImageEnhance, ImageFilter, ImageOps

from bench_codes import zint_matrix  # beside this script

SOURCES, OUT = sys.argv[1], sys.argv[2]
SKIMAGE = os.path.join(SOURCES, "skimage")
OPENCV = os.path.join(SOURCES, "opencv")
HERE = os.path.dirname(os.path.abspath(__file__))

# Photographs codes are placed into, and that serve as code-free pictures. None holds a code.
BACKGROUNDS = [f"{SKIMAGE}/{n}" for n in ("astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg", "motorcycle_left.png",
                                          "brick.png", "grass.png", "gravel.png", "page.png", "text.png", "camera.png")] \
    + [f"{OPENCV}/{n}" for n in ("building.jpg", "fruits.jpg", "home.jpg", "baboon.jpg", "board.jpg", "sudoku.png",
                                 "left01.jpg", "notes.png", "starry_night.jpg", "box_in_scene.png", "stuff.jpg")]

# Person-free pictures for faces: animals, textures, checkerboards, paintings, objects, drawings.
PERSON_FREE = [f"{SKIMAGE}/{n}" for n in ("chelsea.png", "coffee.png", "rocket.jpg", "horse.png", "brick.png", "grass.png",
                                          "gravel.png", "coins.png", "cell.png", "clock_motion.png", "motorcycle_left.png",
                                          "page.png", "text.png", "retina.jpg", "hubble_deep_field.jpg", "logo.png", "color.png",
                                          "moon.png", "phantom.png")] \
    + [f"{OPENCV}/{n}" for n in ("baboon.jpg", "building.jpg", "HappyFish.jpg", "fruits.jpg", "home.jpg", "apple.jpg",
                                 "chicky_512.png", "graf1.png", "graf3.png", "ml.png", "starry_night.jpg", "left01.jpg",
                                 "left05.jpg", "left11.jpg", "right01.jpg", "right12.jpg", "licenseplate_motion.jpg",
                                 "sudoku.png", "orange.jpg", "butterfly.jpg", "board.jpg", "box_in_scene.png", "aero1.jpg",
                                 "pic1.png", "detect_blob.png", "stuff.jpg", "squirrel_cls.jpg", "blox.jpg", "smarties.png",
                                 "notes.png", "LinuxLogo.jpg", "Blender_Suzanne1.jpg", "leuvenA.jpg", "aloeL.jpg",
                                 "rubberwhale1.png", "ela_original.jpg", "text_defocus.jpg", "WindowsLogo.jpg")]
ENLARGED_PERSON_FREE = ["left01.jpg", "coins.png", "graf3.png", "starry_night.jpg", "chicky_512.png", "baboon.jpg",
                        "building.jpg", "fruits.jpg"]


def qr_payloads(rng):
    """(kind, bytes, expected text, qrencode mode flags) for the QR codes."""
    words = ["lookout", "kiosk", "camera", "shelf", "order", "ticket", "guest", "room", "door", "parcel"]
    texts = []
    for i in range(40):
        texts.append(("url", f"https://example.com/{rng.choice(words)}/{rng.randrange(10**6)}?ref=qr{i}".encode(), "utf-8", []))
    for i in range(14):
        texts.append(("ascii", " ".join(rng.choice(words) for _ in range(rng.randrange(3, 40))).encode(), "utf-8", []))
    utf8 = ["Grüße aus Köln – été ✓", "東京タワー 2026年", "Ελληνικά και русский текст", "naïve café crème brûlée ✓",
            "価格: 500円 (税込)", "🙂 emoji and text", "Zürich Hauptbahnhof Gleis 7", "Ünïcödé ïs fïné"]
    for i in range(16):
        texts.append(("utf-8", utf8[i % len(utf8)].encode("utf-8"), "utf-8", []))
    # ECI-free Shift-JIS in byte segments: half-width katakana (single bytes), and 0x5C / 0x7E
    # meant as the ASCII backslash and tilde, which Japanese encoders write.
    sjis = ["ｶﾀｶﾅ ﾃｽﾄ 123", "ﾗｰﾒﾝ 500ｴﾝ", "ｱｲｳｴｵ", "C:\\Users\\ﾃｽﾄ\\ﾌｧｲﾙ.txt", "ｺｰﾄﾞ~ﾊﾞｰｺｰﾄﾞ", "ﾄｳｷｮｳ ｴｷ",
            "漢字\\テスト", "東京~大阪 ﾋｶﾘ", "ﾓｰﾄﾞ:ﾃｽﾄ", "ｻｸﾗ"]
    for i in range(20):
        text = sjis[i % len(sjis)]
        texts.append(("shift_jis", text.encode("cp932"), "cp932", []))
    kanji = ["漢字テスト", "日本語の文章です", "東京都千代田区", "品質管理"]
    for i in range(8):
        text = kanji[i % len(kanji)]
        texts.append(("kanji", text.encode("cp932"), "cp932", ["-k"]))
    latin1 = ["café crème brûlée", "Müller Straße 5", "Señor Niño, año 2026", "Ærøskøbing", "déjà vu à Paris"]
    for i in range(10):
        text = latin1[i % len(latin1)]
        texts.append(("iso-8859-1", text.encode("latin-1"), "latin-1", []))
    for i in range(6):
        body = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ") for _ in range(rng.randrange(200, 500)))
        texts.append(("long", body.encode(), "utf-8", []))
    return texts


def qr_matrix(payload, flags, level):
    """The QR symbol as a 0/1 module array (1 = dark), without a quiet zone."""
    mode = flags if flags else ["-8"]
    png = subprocess.run(["qrencode", *mode, "-l", level, "-s", "1", "-m", "0", "-o", "-"], input=payload,
                         capture_output=True, check=True).stdout
    return (np.asarray(Image.open(io.BytesIO(png)).convert("L")) < 128).astype(np.uint8)


EAN_L = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
EAN_G = ["0100111", "0110011", "0011011", "0100001", "0011101", "0111001", "0000101", "0010001", "0001001", "0010111"]
EAN_R = ["1110010", "1100110", "1101100", "1000010", "1011100", "1001110", "1010000", "1000100", "1001000", "1110100"]
EAN_PARITY = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]


def ean13(rng):
    digits = [rng.randrange(10) for _ in range(12)]
    check = (10 - sum(d * (3 if i % 2 else 1) for i, d in enumerate(digits)) % 10) % 10
    digits.append(check)
    bits = "101"
    for i, d in enumerate(digits[1:7]):
        bits += (EAN_L if EAN_PARITY[digits[0]][i] == "L" else EAN_G)[d]
    bits += "01010"
    for d in digits[7:]:
        bits += EAN_R[d]
    bits += "101"
    # Bars 60 modules tall; guard bars 5 modules longer, as printed.
    height = 60
    matrix = np.zeros((height + 5, len(bits)), np.uint8)
    guards = set(range(0, 3)) | set(range(45, 50)) | set(range(92, 95))
    for x, bit in enumerate(bits):
        if bit == "1":
            matrix[: height + (5 if x in guards else 0), x] = 1
    return "".join(map(str, digits)), matrix


def render_symbol(matrix, module, quiet, inverted=False):
    """The symbol at `module` pixels per module with a quiet zone, as an L image (dark = 0)."""
    h, w = matrix.shape
    canvas = np.zeros((h + 2 * quiet, w + 2 * quiet), np.uint8)
    canvas[quiet:quiet + h, quiet:quiet + w] = matrix
    light, dark = (30, 235) if inverted else (235, 30)
    image = Image.fromarray(np.where(canvas == 1, dark, light).astype(np.uint8))
    size = (max(1, round(canvas.shape[1] * module)), max(1, round(canvas.shape[0] * module)))
    return image.resize(size, Image.NEAREST)


def perspective_coefficients(source, target):
    """PIL's PERSPECTIVE coefficients mapping target corners back to source corners."""
    rows = []
    for (x, y), (u, v) in zip(target, source):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    a = np.array(rows, float)
    b = np.array([c for point in source for c in point], float)
    return np.linalg.solve(a, b)


def symbol_corners(corners, symbol, quiet, module):
    """The symbol's own corners in the picture (its quiet zone left out), clockwise from its top
    left, from the corners `place` gave its canvas."""
    sw, sh = symbol.size
    q = quiet * module
    a, b, c, d, e, f, g, h = perspective_coefficients(corners, [(0, 0), (sw, 0), (sw, sh), (0, sh)])
    inner = [(q, q), (sw - q, q), (sw - q, sh - q), (q, sh - q)]
    return [[round((a * x + b * y + c) / (g * x + h * y + 1), 1), round((d * x + e * y + f) / (g * x + h * y + 1), 1)]
            for x, y in inner]


def place(background, symbol, rng, angle, skew):
    """Pastes the symbol onto the background, rotated by `angle` degrees and with corners moved by
    up to `skew` of its size (perspective). Returns the picture and the symbol's corners."""
    bw, bh = background.size
    sw, sh = symbol.size
    cx = rng.uniform(0.25, 0.75) * bw
    cy = rng.uniform(0.25, 0.75) * bh
    corners = [(-sw / 2, -sh / 2), (sw / 2, -sh / 2), (sw / 2, sh / 2), (-sw / 2, sh / 2)]
    theta = np.radians(angle)
    target = []
    for x, y in corners:
        x += rng.uniform(-skew, skew) * sw
        y += rng.uniform(-skew, skew) * sh
        target.append((cx + x * np.cos(theta) - y * np.sin(theta), cy + x * np.sin(theta) + y * np.cos(theta)))
    coefficients = perspective_coefficients([(0, 0), (sw, 0), (sw, sh), (0, sh)], target)
    warped = symbol.convert("RGB").transform((bw, bh), Image.PERSPECTIVE, tuple(coefficients), Image.BILINEAR)
    mask = Image.new("L", symbol.size, 255).transform((bw, bh), Image.PERSPECTIVE, tuple(coefficients), Image.BILINEAR)
    picture = background.copy()
    picture.paste(warped, (0, 0), mask)
    return picture, target


def degrade(picture, rng, effects):
    """Applies the named effects; returns the picture and the JPEG quality to save at."""
    quality = 90
    if "low_contrast" in effects:
        picture = ImageEnhance.Contrast(picture).enhance(rng.uniform(0.25, 0.45))
    if "dark" in effects:
        picture = ImageEnhance.Brightness(picture).enhance(rng.uniform(0.3, 0.5))
    if "glare" in effects:
        w, h = picture.size
        y, x = np.mgrid[0:h, 0:w]
        gx, gy, radius = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h, rng.uniform(0.1, 0.25) * w
        glow = np.exp(-((x - gx) ** 2 + (y - gy) ** 2) / (2 * radius ** 2)) * rng.uniform(120, 200)
        picture = Image.fromarray(np.clip(np.asarray(picture, float) + glow[..., None], 0, 255).astype(np.uint8))
    if "blur" in effects:
        picture = picture.filter(ImageFilter.GaussianBlur(rng.uniform(0.8, 2.0)))
    if "motion" in effects:
        length = rng.randrange(3, 9)
        array = np.asarray(picture, float)
        # A box blur along one axis: the mean of `length` neighbours, by cumulative sums.
        axis = rng.choice([0, 1])
        padded = np.concatenate([np.repeat(np.take(array, [0], axis), length // 2 + 1, axis), array,
                                 np.repeat(np.take(array, [-1], axis), length // 2, axis)], axis)
        sums = np.cumsum(padded, axis)
        array = (np.take(sums, range(length, length + array.shape[axis]), axis)
                 - np.take(sums, range(0, array.shape[axis]), axis)) / length
        picture = Image.fromarray(np.clip(array, 0, 255).astype(np.uint8))
    if "noise" in effects:
        array = np.asarray(picture, float)
        array = array + np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(6, 18), array.shape)
        picture = Image.fromarray(np.clip(array, 0, 255).astype(np.uint8))
    if "jpeg" in effects:
        quality = rng.randrange(12, 35)
    return picture, quality


def background(path, width, rng):
    image = Image.open(path).convert("RGB")
    height = round(width * 3 / 4)
    # Cover the frame, cropped at random.
    scale = max(width / image.width, height / image.height)
    image = image.resize((round(image.width * scale) + 1, round(image.height * scale) + 1), Image.BICUBIC)
    x, y = rng.randrange(image.width - width + 1), rng.randrange(image.height - height + 1)
    return image.crop((x, y, x + width, y + height))


def save(picture, name, quality):
    path = os.path.join(OUT, name)
    picture.save(path, "JPEG", quality=quality)
    return name


def make_codes(rng, entries):
    effects_pool = ["low_contrast", "dark", "glare", "blur", "motion", "noise", "jpeg"]
    jobs = [("qr",) + p for p in qr_payloads(rng)]
    for _ in range(100):
        digits, matrix = ean13(rng)
        jobs.append(("ean13", "ean13", digits.encode(), "ascii", matrix))
    for index, job in enumerate(jobs):
        kind = job[0]
        width = rng.choice([1024, 1600, 2400, 3200])
        scene = background(rng.choice(BACKGROUNDS), width, rng)
        effects = rng.sample(effects_pool, rng.choice([0, 1, 1, 2, 2, 3]))
        inverted = False
        if kind == "qr":
            _, payload, charset, flags = job[1:]
            matrix = qr_matrix(payload, flags, rng.choice("LMQH"))
            inverted = rng.random() < 0.08
            module = rng.choice([1.6, 2, 2.5, 3, 4, 5, 6, 8]) * width / 1600
            module = max(1.4, module)
            symbol = render_symbol(matrix, module, 4, inverted)
            quiet = 4
        else:
            _, _, payload, charset, matrix = job
            module = max(1.3, rng.choice([1.5, 2, 2.5, 3, 4, 5]) * width / 1600)
            symbol = render_symbol(matrix, module, 10)
            quiet = 10
        angle = rng.choice([0, 0, rng.uniform(-25, 25), rng.uniform(-60, 60), 90, 180])
        skew = rng.choice([0, 0.05, 0.12, 0.2])
        picture, corners = place(scene, symbol, rng, angle, skew)
        picture, quality = degrade(picture, rng, effects + (["inverted"] if inverted else []))
        text = payload.decode(charset)
        name = save(picture, f"code-{index:03d}-{kind}.jpg", quality)
        entries.append({"file": name, "set": "codes", "codes": [{"type": kind, "text": text,
                        "raw_base64": base64.b64encode(payload).decode(), "charset": job[1] if kind == "qr" else "ascii",
                        "corners": symbol_corners(corners, symbol, quiet, module)}],
                        "effects": effects + (["inverted"] if inverted else []), "angle": round(angle, 1),
                        "skew": skew, "module": round(module, 2), "width": width})


def make_code_free(rng, entries):
    for index, path in enumerate(BACKGROUNDS + BACKGROUNDS[:19]):
        width = rng.choice([1024, 1600, 2400])
        picture, quality = degrade(background(path, width, rng), rng,
                                   rng.sample(["blur", "noise", "jpeg", "low_contrast"], rng.choice([0, 1, 2])))
        name = save(picture, f"nocode-{index:02d}.jpg", quality)
        entries.append({"file": name, "set": "code_free", "codes": []})


def make_faces(rng, entries):
    truth = json.load(open(os.path.join(HERE, "faces.json")))
    files = {"astronaut.png": f"{SKIMAGE}/astronaut.png", "messi5.jpg": f"{OPENCV}/messi5.jpg",
             "Tom_Hanks_54745.png": f"{SOURCES}/Tom_Hanks_54745.png", "t1.jpg": f"{SOURCES}/t1.jpg"}
    nprng = np.random.default_rng(1)
    for source, boxes in truth.items():
        if source.startswith("_"):
            continue
        image = Image.open(files[source]).convert("RGB")
        w, h = image.size
        base = os.path.splitext(source)[0]
        variants = [("", image, boxes, 92),
                    ("-mirrored", ImageOps.mirror(image), [[w - x - bw, y, bw, bh] for x, y, bw, bh in boxes], 92),
                    ("-dark", ImageEnhance.Brightness(ImageEnhance.Contrast(image).enhance(0.6)).enhance(0.5), boxes, 92),
                    ("-noisy", Image.fromarray(np.clip(np.asarray(image, float) + nprng.normal(0, 12, (h, w, 3)), 0, 255).astype(np.uint8)), boxes, 92),
                    ("-q20", image, boxes, 20)]
        for factor in (0.6, 1.8):
            if min(w, h) * factor >= 100:
                variants.append((f"-x{factor}", image.resize((round(w * factor), round(h * factor)), Image.LANCZOS),
                                 [[v * factor for v in b] for b in boxes], 92))
        # As a phone photograph: several megapixels, the faces as large a share of the picture.
        factor = max(2, round(3000 / w))
        variants.append(("-phone", image.resize((w * factor, h * factor), Image.BICUBIC), [[v * factor for v in b] for b in boxes], 90))
        for suffix, picture, faces, quality in variants:
            name = save(picture, f"face-{base}{suffix}.jpg", quality)
            entries.append({"file": name, "set": "faces", "faces": [[round(v) for v in b] for b in faces]})
    for path in PERSON_FREE:
        image = Image.open(path).convert("RGB")
        name = save(image, "noface-" + os.path.splitext(os.path.basename(path))[0] + ".jpg", 92)
        entries.append({"file": name, "set": "person_free", "faces": []})
        if os.path.basename(path) in ENLARGED_PERSON_FREE:
            big = image.resize((image.width * 3, image.height * 3), Image.BICUBIC)
            name = save(big, "noface-" + os.path.splitext(os.path.basename(path))[0] + "-x3.jpg", 90)
            entries.append({"file": name, "set": "person_free", "faces": []})


def gtin(rng):
    """A GTIN-14 with its check digit."""
    digits = [rng.randrange(10) for _ in range(13)]
    total = sum(d * (3 if i % 2 == 0 else 1) for i, d in enumerate(digits))
    return "".join(map(str, digits)) + str((10 - total % 10) % 10)


def kind_payloads(rng):
    """(type, zint symbology, bytes given to zint, GS1 mode, bytes expected, payload kind) for the
    kinds only zxing-cpp reads: IATA BCBP-like boarding passes (PDF417, Aztec), GS1 element strings
    (DataMatrix, Aztec: FNC1 after a variable-length field read as GS, 0x1D), text and bytes."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    jobs = []
    for index in range(90):
        kind = ("pdf417", "aztec", "datamatrix")[index % 3]
        symbology = {"pdf417": "PDF417", "aztec": "AZTEC", "datamatrix": "DATAMATRIX"}[kind]
        form = rng.choice({"pdf417": ["bcbp", "bcbp", "text", "binary"], "aztec": ["bcbp", "bcbp", "gs1", "text", "binary"],
                           "datamatrix": ["gs1", "gs1", "text", "binary"]}[kind])
        if form == "bcbp":
            name = ("".join(rng.choice(letters) for _ in range(rng.randrange(4, 10))) + "/"
                    + "".join(rng.choice(letters) for _ in range(rng.randrange(3, 8))))[:20].ljust(20)
            data = ("M1" + name + "E" + "".join(rng.choice(letters + "0123456789") for _ in range(6)).ljust(7)
                    + "".join(rng.choice(letters) for _ in range(6)) + rng.choice(["AC ", "LH ", "BA ", "AF "])
                    + f"{rng.randrange(1, 9999):04d} " + f"{rng.randrange(1, 366):03d}" + rng.choice("YJFC")
                    + f"{rng.randrange(1, 60):03d}{rng.choice('ABCDEF')}" + f"{rng.randrange(1, 400):04d} " + "100").encode()
            jobs.append((kind, symbology, data, False, data, form))
        elif form == "gs1":
            item, date = gtin(rng), f"{rng.randrange(24, 32):02d}{rng.randrange(1, 13):02d}{rng.randrange(1, 29):02d}"
            lot = "".join(rng.choice(letters + "0123456789") for _ in range(rng.randrange(3, 10)))
            serial = "".join(rng.choice("0123456789") for _ in range(rng.randrange(4, 12)))
            if rng.random() < 0.5:
                given, expected = f"[01]{item}[17]{date}[10]{lot}[21]{serial}", f"01{item}17{date}10{lot}\x1d21{serial}"
            else:
                given, expected = f"[01]{item}[10]{lot}[17]{date}", f"01{item}10{lot}\x1d17{date}"
            jobs.append((kind, symbology, given.encode(), True, expected.encode(), form))
        elif form == "text":
            words = ["ticket", "seat", "row", "gate", "entry", "order", "lookout", "pass", "event", "hall"]
            data = (" ".join(rng.choice(words) for _ in range(rng.randrange(2, 8))) + f" #{rng.randrange(10**6)}").encode()
            jobs.append((kind, symbology, data, False, data, form))
        else:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(8, 60)))
            jobs.append((kind, symbology, data, False, data, form))
    return jobs


def make_kinds(entries):
    """PDF417, Aztec and DataMatrix symbols drawn by zint, placed into the photographs as the QR
    codes are (perspective, rotation, blur, glare, noise, JPEG), with their own seed so the rest
    of the corpus stays as it was."""
    rng = random.Random(30)
    effects_pool = ["low_contrast", "dark", "glare", "blur", "motion", "noise", "jpeg"]
    for index, (kind, symbology, given, gs1, expected, form) in enumerate(kind_payloads(rng)):
        width = rng.choice([1024, 1600, 2400])
        scene = background(rng.choice(BACKGROUNDS), width, rng)
        effects = rng.sample(effects_pool, rng.choice([0, 1, 1, 2, 2, 3]))
        matrix = zint_matrix(symbology, given, gs1)
        module = max(1.5, rng.choice([2, 2.5, 3, 4, 5, 6]) * width / 1600)
        symbol = render_symbol(matrix, module, 4)
        angle = rng.choice([0, 0, rng.uniform(-25, 25), rng.uniform(-60, 60), 90, 180])
        skew = rng.choice([0, 0.05, 0.12, 0.2])
        picture, corners = place(scene, symbol, rng, angle, skew)
        picture, quality = degrade(picture, rng, effects)
        name = save(picture, f"kind-{index:03d}-{kind}.jpg", quality)
        entries.append({"file": name, "set": "kinds", "codes": [{"type": kind, "form": form,
                        "raw_base64": base64.b64encode(expected).decode(),
                        "corners": symbol_corners(corners, symbol, 4, module)}],
                        "effects": effects, "angle": round(angle, 1), "skew": skew, "module": round(module, 2), "width": width})


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(18)
    entries = []
    make_codes(rng, entries)
    make_code_free(rng, entries)
    make_faces(rng, entries)
    make_kinds(entries)
    json.dump(entries, open(os.path.join(OUT, "truth.json"), "w"), ensure_ascii=False, indent=1)
    sets = {}
    for entry in entries:
        sets[entry["set"]] = sets.get(entry["set"], 0) + 1
    print("corpus:", ", ".join(f"{n} {k}" for k, n in sets.items()), "in", OUT)


if __name__ == "__main__":
    main()
