"""The codes of the benchmark photographs (make_bench.py): QR payloads and symbols of every
version and level, EAN-13 symbols, PDF417, Aztec and DataMatrix symbols from make_corpus.py.
"""
import io
import random
import subprocess

import numpy as np
from PIL import Image


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


def zint_matrix(symbology, data, gs1=False):
    """The symbol zint draws for `data` (bytes), one pixel per module, as a 0/1 matrix (dark = 1)."""
    options = ["--gs1"] if gs1 else ["--binary"]
    png = subprocess.run(["zint", "-b", symbology, "--scale=0.5", *options, "--notext", "--direct", "--filetype=PNG",
                          "-i", "-"], input=data, capture_output=True, check=True).stdout
    return (np.asarray(Image.open(io.BytesIO(png)).convert("L")) < 128).astype(np.uint8)


def zint_code(rng, kind):
    from make_corpus import kind_payloads
    # kind_payloads draws 90 jobs, 30 of each kind; take one of the wanted kind.
    jobs = [job for job in kind_payloads(random.Random(rng.randrange(2**32))) if job[0] == kind]
    kind, symbology, given, gs1, expected, form = rng.choice(jobs)
    return {"type": kind, "payload": expected, "matrix": zint_matrix(symbology, given, gs1), "form": form}


def version_general(rng):
    return weighted(rng, [(1, 10), (2, 14), (3, 14), (4, 12), (5, 10), (6, 8), (7, 8), (8, 6), (9, 5), (10, 5),
                          (11, 2), (12, 2), (13, 2), (14, 2)])


def symbol_size(code):
    h, w = code["matrix"].shape
    return w, h
