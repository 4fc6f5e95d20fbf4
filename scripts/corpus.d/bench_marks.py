"""Marks on the labels and light on the scenes of the benchmark photographs (make_bench.py):
scratches, stains, holes and tears; uneven light, hard shadows, glare, bright spots and bloom.
"""
import numpy as np
from PIL import Image, ImageDraw, ImageFilter


# Damage, drawn in texel space onto a label texture (its own picture, its background under holes).
def scratch(texture, rng, nrng, count, width, colour):
    image = Image.fromarray(texture)
    draw = ImageDraw.Draw(image)
    h, w = texture.shape[:2]
    for _ in range(count):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        angle = rng.uniform(0, np.pi)
        length = rng.uniform(0.3, 1.2) * max(w, h)
        points = []
        for k in range(9):
            s = (k / 8 - 0.5) * length
            points.append((x + s * np.cos(angle) + rng.uniform(-1, 1) * width,
                           y + s * np.sin(angle) + rng.uniform(-1, 1) * width))
        draw.line(points, fill=tuple(colour) + (255,), width=max(1, int(width * rng.uniform(0.5, 1.5))), joint="curve")
    texture[...] = np.asarray(image)


def blob_mask(nrng, shape, cells, threshold):
    """A smooth random mask (0..1) of texel `shape`: noise on a coarse grid, enlarged."""
    coarse = nrng.random((cells, cells)).astype(np.float32)
    field = np.asarray(Image.fromarray(coarse, "F").resize((shape[1], shape[0]), Image.BICUBIC))
    return np.clip((field - threshold) * 6, 0, 1)


def stain(texture, nrng, cells, threshold, colour, strength):
    mask = blob_mask(nrng, texture.shape[:2], cells, threshold)[..., None] * strength
    rgb = texture[..., :3].astype(np.float32)
    stained = rgb * (np.asarray(colour, np.float32) / 255)
    texture[..., :3] = np.clip(rgb * (1 - mask) + stained * mask, 0, 255).astype(np.uint8)


def hole(texture, rng, centre, radius, jag, fill=None):
    """A missing piece: a jagged polygon cut out (transparent) or painted over with `fill`."""
    image = Image.fromarray(texture)
    draw = ImageDraw.Draw(image)
    points = []
    n = rng.randrange(7, 14)
    for k in range(n):
        a = 2 * np.pi * k / n + rng.uniform(-0.2, 0.2)
        r = radius * rng.uniform(1 - jag, 1 + jag)
        points.append((centre[0] + r * np.cos(a), centre[1] + r * np.sin(a)))
    draw.polygon(points, fill=(0, 0, 0, 0) if fill is None else tuple(fill) + (255,))
    texture[...] = np.asarray(image)


def tear(texture, rng, depth):
    """A torn edge: a jagged strip `depth` texels deep taken off one side of the label (or a corner)."""
    h, w = texture.shape[:2]
    image = Image.fromarray(texture)
    draw = ImageDraw.Draw(image)
    side = rng.randrange(5)
    jag = []
    steps = 40
    for k in range(steps + 1):
        jag.append(depth * (1 + rng.uniform(-0.35, 0.35)))
    if side == 4:
        # A corner torn off along a ragged diagonal.
        a, b = depth * rng.uniform(1.5, 2.5), depth * rng.uniform(1.5, 2.5)
        points = [(0, 0), (a, 0)] + [(a * (1 - k / steps) + rng.uniform(-2, 2) * depth / 10,
                                      b * k / steps + rng.uniform(-2, 2) * depth / 10) for k in range(steps + 1)] + [(0, b)]
    elif side in (0, 2):
        y = 0 if side == 0 else h
        sign = 1 if side == 0 else -1
        points = [(0, y)] + [(w * k / steps, y + sign * jag[k]) for k in range(steps + 1)] + [(w, y)]
    else:
        x = 0 if side == 1 else w
        sign = 1 if side == 1 else -1
        points = [(x, 0)] + [(x + sign * jag[k], h * k / steps) for k in range(steps + 1)] + [(x, h)]
    draw.polygon(points, fill=(0, 0, 0, 0))
    texture[...] = np.asarray(image)


# Whole-picture effects, on float32 H x W x 3 pictures in 0..255 (values may pass 255 before the camera).
def smooth_field(nrng, size, cells, lo, hi):
    """A smooth random field of the picture's size between lo and hi."""
    coarse = nrng.uniform(lo, hi, (cells[1], cells[0])).astype(np.float32)
    return np.asarray(Image.fromarray(coarse, "F").resize(size, Image.BICUBIC))


def lighting(picture, rng, nrng, strength):
    """Uneven light: a gradient across the picture, vignetting and slow blotches."""
    h, w = picture.shape[:2]
    small = (64, 48)
    y, x = np.mgrid[0:small[1], 0:small[0]].astype(np.float32)
    x, y = x / (small[0] - 1) - 0.5, y / (small[1] - 1) - 0.5
    angle = rng.uniform(0, 2 * np.pi)
    field = 1 + strength * (x * np.cos(angle) + y * np.sin(angle)) * 1.5
    field *= 1 - strength * 0.8 * (x * x + y * y) * 2
    field *= np.asarray(Image.fromarray(nrng.uniform(1 - strength / 2, 1 + strength / 2, (4, 5)).astype(np.float32), "F")
                        .resize(small, Image.BICUBIC))
    picture *= np.asarray(Image.fromarray(field.astype(np.float32), "F").resize((w, h), Image.BILINEAR))[..., None]


def shadow(picture, rng, nrng, box, hard, depth):
    """A shadow across `box` (x0, y0, x1, y1): the edge of an object's shadow through the box with
    a soft or hard edge, or a bar (a pole, a cable), multiplied in."""
    h, w = picture.shape[:2]
    scale = 4
    sw, sh = max(1, w // scale), max(1, h // scale)
    mask = Image.new("L", (sw, sh), 0)
    draw = ImageDraw.Draw(mask)
    cx = rng.uniform(box[0], box[2]) / scale
    cy = rng.uniform(box[1], box[3]) / scale
    angle = rng.uniform(0, 2 * np.pi)
    reach = 3 * max(sw, sh)
    size = max(box[2] - box[0], box[3] - box[1]) / scale
    kind = rng.choice(["edge", "edge", "bar", "blobs"])
    if kind == "edge":
        dx, dy = np.cos(angle), np.sin(angle)
        wobble = [(cx + dx * t + -dy * rng.uniform(-0.05, 0.05) * size, cy + dy * t + dx * rng.uniform(-0.05, 0.05) * size)
                  for t in np.linspace(-reach, reach, 9)]
        draw.polygon(wobble + [(cx + dx * reach - dy * reach, cy + dy * reach + dx * reach),
                               (cx - dx * reach - dy * reach, cy - dy * reach + dx * reach)], fill=255)
    elif kind == "bar":
        width = rng.uniform(0.08, 0.35) * size
        dx, dy = np.cos(angle), np.sin(angle)
        draw.polygon([(cx - dx * reach - dy * width, cy - dy * reach + dx * width),
                      (cx + dx * reach - dy * width, cy + dy * reach + dx * width),
                      (cx + dx * reach + dy * width, cy + dy * reach - dx * width),
                      (cx - dx * reach + dy * width, cy - dy * reach - dx * width)], fill=255)
    else:
        for _ in range(rng.randrange(3, 9)):
            r = rng.uniform(0.1, 0.4) * size
            x, y = cx + rng.uniform(-0.7, 0.7) * size, cy + rng.uniform(-0.7, 0.7) * size
            draw.ellipse([x - r, y - r * rng.uniform(0.5, 1.5), x + r, y + r], fill=255)
    blur = rng.uniform(0.3, 1.5) if hard else rng.uniform(0.04, 0.25) * size
    mask = mask.filter(ImageFilter.GaussianBlur(blur)).resize((w, h), Image.BILINEAR)
    field = 1 - depth * np.asarray(mask, np.float32) / 255
    picture *= field[..., None]


def glare(picture, rng, box, strength, size, veil):
    """A specular highlight over `box`: a bright soft-edged patch (a window or a lamp reflected by a
    glossy surface) that saturates, over a veil of scattered light lowering the contrast."""
    h, w = picture.shape[:2]
    bw, bh = box[2] - box[0], box[3] - box[1]
    cx, cy = rng.uniform(box[0] + 0.15 * bw, box[2] - 0.15 * bw), rng.uniform(box[1] + 0.15 * bh, box[3] - 0.15 * bh)
    rx, ry = size * bw * rng.uniform(0.6, 1.4), size * bh * rng.uniform(0.6, 1.4)
    angle = rng.uniform(0, np.pi)
    pad = 3 * max(rx, ry)
    x0, x1 = int(max(0, cx - pad)), int(min(w, cx + pad))
    y0, y1 = int(max(0, cy - pad)), int(min(h, cy + pad))
    if x1 <= x0 or y1 <= y0:
        return
    y, x = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    x, y = x - cx, y - cy
    xr, yr = x * np.cos(angle) + y * np.sin(angle), -x * np.sin(angle) + y * np.cos(angle)
    d = np.sqrt((xr / rx) ** 2 + (yr / ry) ** 2)
    # A flat-topped core with a soft shoulder, and a wide halo.
    core = np.clip((1.25 - d) / 0.5, 0, 1) ** 1.5
    halo = np.exp(-(d / 2.2) ** 2)
    picture[y0:y1, x0:x1] += (255 * strength * core + 255 * veil * halo)[..., None]


def spots(picture, rng, box, count, radius, strength):
    """Small bright spots (reflections of point lights) with halos over `box`."""
    h, w = picture.shape[:2]
    for _ in range(count):
        cx, cy = rng.uniform(box[0], box[2]), rng.uniform(box[1], box[3])
        r = radius * rng.uniform(0.5, 1.5)
        pad = 5 * r
        x0, x1 = int(max(0, cx - pad)), int(min(w, cx + pad + 1))
        y0, y1 = int(max(0, cy - pad)), int(min(h, cy + pad + 1))
        if x1 <= x0 or y1 <= y0:
            continue
        y, x = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        d2 = ((x - cx) ** 2 + (y - cy) ** 2) / (r * r)
        picture[y0:y1, x0:x1] += (255 * strength * (np.exp(-d2 * 1.5) + 0.15 * np.exp(-d2 / 8)))[..., None]


def bloom(picture, radius, strength):
    """Light spilling from bright areas into their neighbours, as an over-exposed lens shows."""
    bright = np.clip(picture - 200, 0, None)
    image = Image.fromarray(np.clip(bright, 0, 255).astype(np.uint8))
    spread = np.asarray(image.filter(ImageFilter.GaussianBlur(radius)), np.float32)
    picture += strength * spread
