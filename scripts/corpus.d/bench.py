"""Rendering for the benchmark photographs (scripts/corpus.d/make_bench.py): codes printed on
labels, sheets and cans or shown on screens, seen through a phone camera (perspective, lens blur,
exposure, sensor noise, JPEG). numpy and PIL only, as the rest of the corpus (no scipy).

Geometry: a surface holds a plane of "label" coordinates (u, v) in modules (a symbol's top-left
corner at 0, 0). A camera with focal length f (pixels) at the origin looks down +z; the surface
is posed by a rotation and put so that its reference point (uc, vc) lands on a chosen pixel at
depth f, where one module is `module` pixels wide. Rendering casts each picture pixel's ray back
onto the surface (exactly: a plane, or a cylinder), so the corners written to the truth are the
same mapping that drew the pixels.
"""
import numpy as np
from PIL import Image, ImageDraw, ImageFilter


def rotation(roll, pitch, yaw):
    """Rotation matrix: yaw about y, then pitch about x, then roll about the optical axis (degrees)."""
    r, p, y = np.radians([roll, pitch, yaw])
    rz = np.array([[np.cos(r), -np.sin(r), 0], [np.sin(r), np.cos(r), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, np.cos(p), -np.sin(p)], [0, np.sin(p), np.cos(p)]])
    ry = np.array([[np.cos(y), 0, np.sin(y)], [0, 1, 0], [-np.sin(y), 0, np.cos(y)]])
    return rz @ rx @ ry


class Surface:
    def __init__(self, size, f, centre, module, rot, uc, vc):
        self.px, self.py = size[0] / 2, size[1] / 2
        self.f, self.m, self.rot, self.uc, self.vc = f, module, rot, uc, vc
        self.T = np.array([centre[0] - self.px, centre[1] - self.py, f], float)

    def forward(self, u, v):
        """Picture coordinates of label points."""
        s = self.point(np.atleast_1d(np.asarray(u, float)), np.atleast_1d(np.asarray(v, float)))
        p = np.tensordot(self.rot, s, 1) + self.T.reshape(3, *([1] * (s.ndim - 1)))
        return self.f * p[0] / p[2] + self.px, self.f * p[1] / p[2] + self.py

    def rays(self, x, y):
        d = np.stack([(x - self.px) / self.f, (y - self.py) / self.f, np.ones_like(x)])
        return -self.rot.T @ self.T, np.tensordot(self.rot.T, d, 1)


class Flat(Surface):
    def __init__(self, size, f, centre, module, rot, uc, vc):
        super().__init__(size, f, centre, module, rot, uc, vc)
        # The plane's homography (u, v, 1) -> (x z, y z, z), and its inverse for rendering.
        k = np.array([[f, 0, self.px], [0, f, self.py], [0, 0, 1]])
        r1, r2 = rot[:, 0] * module, rot[:, 1] * module
        self.H = k @ np.column_stack([r1, r2, self.T - uc * r1 - vc * r2])
        self.Hinv = np.linalg.inv(self.H).astype(np.float32)

    def point(self, u, v):
        return np.stack([(u - self.uc) * self.m, (v - self.vc) * self.m, np.zeros_like(u)])

    def inverse(self, x, y):
        """(u, v, valid, shade, specular) of the picture pixels x, y (arrays that broadcast)."""
        h = self.Hinv
        c = h[2, 0] * x + h[2, 1] * y + h[2, 2]
        valid = c > 0
        c = np.where(valid, c, np.float32(1e-9))
        return (h[0, 0] * x + h[0, 1] * y + h[0, 2]) / c, (h[1, 0] * x + h[1, 1] * y + h[1, 2]) / c, valid, None, None


class Cylinder(Surface):
    """A label wrapped round a can or bottle: the axis along v, radius `radius` modules; the
    label's u = uc sits at angle phi0 from the line facing the camera. Lit from `light`
    (radians about the axis) with a specular band, as a glossy can is."""

    def __init__(self, size, f, centre, module, rot, uc, vc, radius, phi0, light, specular, gloss):
        super().__init__(size, f, centre, module, rot, uc, vc)
        self.radius, self.phi0, self.light, self.specular, self.gloss = radius, phi0, light, specular, gloss

    def point(self, u, v):
        phi = (u - self.uc) / self.radius + self.phi0
        r = self.radius * self.m
        return np.stack([r * np.sin(phi), (v - self.vc) * self.m, r * (1 - np.cos(phi))])

    def inverse(self, x, y):
        x, y = np.broadcast_arrays(x, y)
        o, d = self.rays(x, y)
        r = self.radius * self.m
        oz = o[2] - r
        a = d[0] ** 2 + d[2] ** 2
        b = 2 * (o[0] * d[0] + oz * d[2])
        c = o[0] ** 2 + oz ** 2 - r ** 2
        disc = b * b - 4 * a * c
        valid = disc >= 0
        t = (-b - np.sqrt(np.maximum(disc, 0))) / (2 * a)
        px, py, pz = o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]
        phi = np.arctan2(px, r - pz)
        shade = 0.35 + 0.65 * np.maximum(0, np.cos(phi - self.light))
        # Darker still at the silhouette, where the surface turns away.
        shade *= 0.55 + 0.45 * np.cos(np.clip(phi, -np.pi / 2, np.pi / 2)) ** 0.5
        spec = self.specular * np.exp(-((phi - self.light / 2) / self.gloss) ** 2)
        return self.uc + (phi - self.phi0) * self.radius, self.vc + py / self.m, valid, shade, spec


def outline(surface, u0, v0, u1, v1, steps=24):
    """Picture points along the rectangle (u0, v0)-(u1, v1) of the label plane."""
    t = np.linspace(0, 1, steps)
    us = np.concatenate([u0 + (u1 - u0) * t, np.full(steps, u1), u1 - (u1 - u0) * t, np.full(steps, u0)])
    vs = np.concatenate([np.full(steps, v0), v0 + (v1 - v0) * t, np.full(steps, v1), v1 - (v1 - v0) * t])
    return surface.forward(us, vs)


def render(picture, surface, texture, tpm, u0, v0, ss=1, body=None, emissive=False):
    """Draws `texture` (RGBA uint8, `tpm` texels a module, texel (0, 0) at label point (u0, v0))
    onto `picture` (float32 H x W x 3) through `surface`, averaging ss x ss rays a pixel. `body`
    (colour, v from, v to) paints the rest of a cylinder between those v. Returns the label's
    bounding box in the picture or None when it is out of sight."""
    th, tw = texture.shape[:2]
    bu0, bv0, bu1, bv1 = u0, v0, u0 + tw / tpm, v0 + th / tpm
    if body is not None:
        reach = surface.radius * np.pi / 2
        bu0, bu1 = surface.uc - surface.phi0 * surface.radius - reach, surface.uc - surface.phi0 * surface.radius + reach
        bv0, bv1 = min(bv0, body[1]), max(bv1, body[2])
    xs, ys = outline(surface, bu0, bv0, bu1, bv1)
    h, w = picture.shape[:2]
    x0, x1 = max(0, int(np.floor(xs.min())) - 1), min(w, int(np.ceil(xs.max())) + 2)
    y0, y1 = max(0, int(np.floor(ys.min())) - 1), min(h, int(np.ceil(ys.max())) + 2)
    if x1 <= x0 or y1 <= y0:
        return None
    gx = np.arange(x0, x1, dtype=np.float32)[None, :]
    gy = np.arange(y0, y1, dtype=np.float32)[:, None]
    region = picture[y0:y1, x0:x1]
    total = np.zeros_like(region)
    offsets = [(i + 0.5) / ss for i in range(ss)]
    for dy in offsets:
        for dx in offsets:
            u, v, valid, shade, spec = surface.inverse(gx + dx, gy + dy)
            j = np.floor((u - u0) * tpm).astype(np.int32)
            i = np.floor((v - v0) * tpm).astype(np.int32)
            inside = valid & (i >= 0) & (i < th) & (j >= 0) & (j < tw)
            np.clip(i, 0, th - 1, out=i)
            np.clip(j, 0, tw - 1, out=j)
            texel = texture[i, j]
            alpha = texel[..., 3].astype(np.float32)
            alpha *= inside / np.float32(255)
            colour = texel[..., :3].astype(np.float32)
            base = region
            if shade is not None and not emissive:
                colour *= shade[..., None]
            if spec is not None:
                colour += (255 * spec * (alpha > 0))[..., None]
            if body is not None:
                on_body = valid & (v >= body[1]) & (v <= body[2])
                tint = np.asarray(body[0], np.float32) * shade[..., None] + 255 * spec[..., None]
                base = np.where(on_body[..., None], tint, region)
            # base + alpha (colour - base)
            colour -= base
            colour *= alpha[..., None]
            colour += base
            total += colour
    picture[y0:y1, x0:x1] = total / (ss * ss)
    return x0, y0, x1, y1


# Module shapes (texel masks of one module) for the styles of printed codes.
def module_tile(shape, tpm):
    c = (np.arange(tpm) + 0.5) / tpm - 0.5
    y, x = np.meshgrid(c, c, indexing="ij")
    if shape == "dot":
        return (x * x + y * y <= 0.23).astype(np.uint8)
    if shape == "small_dot":
        return (x * x + y * y <= 0.13).astype(np.uint8)
    if shape == "rounded":
        k = np.maximum(np.abs(x), np.abs(y))
        corner = np.hypot(np.maximum(np.abs(x) - 0.2, 0), np.maximum(np.abs(y) - 0.2, 0))
        return ((k <= 0.5) & (corner <= 0.3)).astype(np.uint8)
    if shape == "diamond":
        return (np.abs(x) + np.abs(y) <= 0.55).astype(np.uint8)
    return np.ones((tpm, tpm), np.uint8)


def finder_boxes(matrix):
    """The three 7x7 finder patterns of a QR matrix as (row, column) origins."""
    n = matrix.shape[0]
    return [(0, 0), (0, n - 7), (n - 7, 0)]


def ink_mask(matrix, tpm, shape="square", finder_shape="square", qr=True):
    """Texel mask (1 = ink) of a module matrix drawn in the given module shapes; finder patterns
    keep their own shape (square, or rounded rings for designer codes)."""
    mask = np.kron(matrix, module_tile(shape, tpm))
    if qr and shape != "square":
        for r, c in finder_boxes(matrix):
            block = matrix[r:r + 7, c:c + 7]
            mask[r * tpm:(r + 7) * tpm, c * tpm:(c + 7) * tpm] = np.kron(block, np.ones((tpm, tpm), np.uint8))
    if qr and finder_shape == "rounded":
        for r, c in finder_boxes(matrix):
            mask[r * tpm:(r + 7) * tpm, c * tpm:(c + 7) * tpm] = rounded_finder(tpm)
    return mask


def rounded_finder(tpm):
    c = (np.arange(7 * tpm) + 0.5) / tpm - 3.5
    y, x = np.meshgrid(c, c, indexing="ij")

    def rounded_square(half, radius):
        return np.hypot(np.maximum(np.abs(x) - (half - radius), 0), np.maximum(np.abs(y) - (half - radius), 0)) <= radius

    ring = rounded_square(3.5, 1.6) & ~rounded_square(2.5, 1.1)
    return (ring | rounded_square(1.5, 0.7)).astype(np.uint8)


def label_texture(matrix, tpm, quiet, margin, paper, ink, shape="square", finder_shape="square", qr=True,
                  inverted=False, module_aspect=1):
    """RGBA texture of a printed symbol: the matrix with `quiet` modules of quiet zone and `margin`
    modules more of label each side (a list of four: left, top, right, bottom). Returns the
    texture and the label point of its top-left texel."""
    quiet = quiet if isinstance(quiet, (list, tuple)) else [quiet] * 4
    margin = margin if isinstance(margin, (list, tuple)) else [margin] * 4
    left, top = quiet[0] + margin[0], quiet[1] + margin[1]
    right, bottom = quiet[2] + margin[2], quiet[3] + margin[3]
    mask = ink_mask(matrix, tpm, shape, finder_shape, qr)
    h, w = mask.shape
    th = int(round((top + bottom) * tpm)) + h
    tw = int(round((left + right) * tpm)) + w
    full = np.zeros((th, tw), np.uint8)
    oy, ox = int(round(top * tpm)), int(round(left * tpm))
    full[oy:oy + h, ox:ox + w] = mask
    if inverted:
        # Light modules on a dark label: the symbol's own area and its quiet zone turn over.
        full = 1 - full
    texture = np.empty((th, tw, 4), np.uint8)
    texture[..., :3] = np.where(full[..., None] == 1, np.asarray(ink, np.uint8), np.asarray(paper, np.uint8))
    texture[..., 3] = 255
    return texture, -left, -top


def paste_texture(sheet, tpm, texture, u, v, u0, v0):
    """Copies a label texture onto a larger sheet texture, its label point (0, 0) at sheet point (u, v)."""
    y, x = int(round((v + v0) * tpm)), int(round((u + u0) * tpm))
    h, w = texture.shape[:2]
    sheet[y:y + h, x:x + w] = texture


def scribble_text(texture, rng, box, colour, line_height):
    """Grey word-like blocks in box (texel coordinates x0, y0, x1, y1), as printed captions."""
    draw = ImageDraw.Draw(image := Image.fromarray(texture))
    x0, y0, x1, y1 = box
    y = y0
    while y + line_height <= y1:
        x = x0
        while x < x1:
            word = rng.uniform(1.5, 6) * line_height
            if x + word > x1:
                break
            draw.rectangle([x, y + line_height * 0.15, x + word, y + line_height * 0.8], fill=tuple(colour) + (255,))
            x += word + line_height * rng.uniform(0.5, 1.2)
        y += line_height * rng.uniform(1.4, 1.9)
    texture[...] = np.asarray(image)


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


def to_image(picture):
    return Image.fromarray(np.clip(picture, 0, 255, out=picture).astype(np.uint8))


_NOISE = {}


def noise_plane(nrng, shape):
    """Unit Gaussian noise of `shape` (H x W): a window of a fixed 4096 x 4096 field at a random
    offset (drawing megapixels of fresh noise for each picture costs more than all the rest)."""
    if "field" not in _NOISE:
        _NOISE["field"] = np.random.default_rng(1234).standard_normal((4096, 4096), dtype=np.float32)
    field = _NOISE["field"]
    h, w = shape
    if h > 4096 or w > 4096:
        field = np.tile(field, (h // 4096 + 1, w // 4096 + 1))
    oy, ox = int(nrng.integers(field.shape[0] - h + 1)), int(nrng.integers(field.shape[1] - w + 1))
    return field[oy:oy + h, ox:ox + w]


def noise_run(nrng, n):
    """`n` values of unit Gaussian noise in a row: a run of the fixed field (or of it repeated)."""
    noise_plane(nrng, (1, 1))
    field = _NOISE["field"].reshape(-1)
    if n > field.size:
        field = np.tile(field, n // field.size + 1)
    start = int(nrng.integers(field.size - n + 1))
    return field[start:start + n]


def gaussian(image, sigma):
    """A Gaussian blur of `sigma` pixels, as one box blur (small sigmas) or two of the variance
    it needs: PIL's GaussianBlur costs three box blurs whatever the sigma."""
    if sigma < 0.25:
        return image
    passes = 1 if sigma <= 0.8 else 2
    radius = (np.sqrt(1 + 12 * sigma * sigma / passes) - 1) / 2
    for _ in range(passes):
        image = image.filter(ImageFilter.BoxBlur(radius))
    return image


def motion_blur(image, length, angle):
    """A straight motion blur of `length` pixels at `angle` radians: the mean of shifted copies."""
    a = np.asarray(image, np.float32)
    steps = max(2, int(round(length)) + 1)
    total = np.zeros_like(a)
    h, w = a.shape[:2]
    for k in range(steps):
        s = (k / (steps - 1) - 0.5) * length
        dx, dy = int(round(s * np.cos(angle))), int(round(s * np.sin(angle)))
        shifted = np.roll(a, (dy, dx), (0, 1))
        total += shifted
    return to_image(total / steps)


def optics(image, blur, motion, regions):
    """Lens blur (Gaussian, `blur` pixels) and shake (`motion`: length, angle) over the picture,
    or over each of `regions` widened by the blur's reach when they cover less than half of it."""
    def apply(part):
        if blur > 0.05:
            part = gaussian(part, blur)
        if motion is not None and motion[0] >= 1:
            part = motion_blur(part, *motion)
        return part

    if blur <= 0.05 and (motion is None or motion[0] < 1):
        return image
    w, h = image.size
    pad = int(np.ceil(3 * blur + (motion[0] if motion else 0))) + 2
    boxes = []
    for x0, y0, x1, y1 in regions or []:
        boxes.append((max(0, int(x0) - 2 * pad), max(0, int(y0) - 2 * pad), min(w, int(np.ceil(x1)) + 2 * pad),
                      min(h, int(np.ceil(y1)) + 2 * pad)))
    if not boxes or sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes) > 0.5 * w * h:
        return apply(image)
    out = image.copy()
    for x0, y0, x1, y1 in boxes:
        part = apply(image.crop((x0, y0, x1, y1)))
        # Keep the inner part, whose blur saw all its neighbours (or the picture's edge).
        ix0, iy0 = (pad if x0 > 0 else 0), (pad if y0 > 0 else 0)
        ix1, iy1 = (x1 - x0 - pad if x1 < w else x1 - x0), (y1 - y0 - pad if y1 < h else y1 - y0)
        out.paste(part.crop((ix0, iy0, ix1, iy1)), (x0 + ix0, y0 + iy0))
    return out


def camera(picture, rng, nrng, blur, motion, exposure, gain, read_noise, shot_noise, sharpen, regions=None):
    """The phone: lens blur and shake on the scene, exposure (clipping), sensor noise, the picture
    brightened by `gain` (noise and all), a touch of sharpening. Blur is spent only on `regions`
    (picture boxes round the codes) when they are a small part of the picture: the backgrounds
    are enlarged photographs, soft already. Returns a PIL image."""
    image = to_image(picture)
    image = optics(image, blur, motion, regions)
    a = np.asarray(image, np.float32)
    h, w = a.shape[:2]
    # Noise grows with the light a pixel took (shot noise) over a floor (read noise); mostly in
    # brightness, some in colour.
    sigma = np.sqrt(read_noise ** 2 + shot_noise * exposure * a[..., 1])
    a *= exposure * gain
    sigma *= noise_plane(nrng, (h, w))
    sigma *= 0.85 * gain
    a += sigma[..., None]
    a += (0.35 * gain * read_noise) * noise_run(nrng, h * w * 3).reshape(h, w, 3)
    image = to_image(a)
    if sharpen:
        image = image.filter(ImageFilter.UnsharpMask(radius=sharpen[0], percent=sharpen[1], threshold=2))
    return image
