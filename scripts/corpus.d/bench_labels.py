"""Labels on surfaces for the benchmark photographs (make_bench.py): a code printed on a label
with its quiet zone, caption and damage, placed flat or round a can so that it is seen whole.
"""
import numpy as np
from PIL import Image

import bench
import bench_marks
from bench import Cylinder, Flat, rotation
from bench_codes import symbol_size
from bench_sources import LOGOS, ink, paper


def tpm_for(module, shaped=False):
    return int(np.clip(np.ceil(module * 1.3), 6 if shaped else 3, 14))


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
            bench_marks.scratch(texture, rng, nrng, rng.randrange(2, 9), tpm * rng.uniform(0.15, 0.55),
                          (235, 235, 230) if light else (40, 35, 30))
        elif kind == "stain":
            colour = rng.choice([(150, 110, 60), (120, 120, 130), (90, 130, 90), (170, 140, 100)])
            bench_marks.stain(texture, nrng, rng.randrange(3, 9), rng.uniform(0.5, 0.72), colour, rng.uniform(0.4, 0.85))
        elif kind == "missing":
            for _ in range(rng.randrange(1, 3)):
                r = rng.uniform(0.04, 0.12) * min(sw, sh)
                centre = (sx0 + rng.uniform(0.1, 0.9) * sw, sy0 + rng.uniform(0.1, 0.9) * sh)
                fill = None if rng.random() < 0.5 else rng.choice([(245, 245, 240), (30, 30, 30), (200, 60, 50)])
                bench_marks.hole(texture, rng, centre, r, 0.4, fill)
        elif kind == "torn":
            bench_marks.tear(texture, rng, rng.uniform(0.03, 0.12) * min(sw, sh) + min(-u0, -v0) * tpm)
        else:
            # Worn print: ink rubbed off in a broad patch.
            mask = bench_marks.blob_mask(nrng, texture.shape[:2], rng.randrange(2, 6), rng.uniform(0.5, 0.7))[..., None]
            rgb = texture[..., :3].astype(np.float32)
            texture[..., :3] = (rgb * (1 - mask * 0.75) + np.array([230, 228, 220], np.float32) * mask * 0.75).astype(np.uint8)
        effects.append(kind)


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
