"""Rendering for the benchmark photographs (scripts/corpus.d/make_bench.py): codes printed on
labels, sheets and cans or shown on screens, seen through a phone camera (perspective, lens blur,
exposure, sensor noise, JPEG). numpy and PIL only, as the rest of the corpus (no scipy). Here the
surfaces, their rendering and the labels' print; marks and light are in bench_marks.py, the
camera in bench_camera.py.

Geometry: a surface holds a plane of "label" coordinates (u, v) in modules (a symbol's top-left
corner at 0, 0). A camera with focal length f (pixels) at the origin looks down +z; the surface
is posed by a rotation and put so that its reference point (uc, vc) lands on a chosen pixel at
depth f, where one module is `module` pixels wide. Rendering casts each picture pixel's ray back
onto the surface (exactly: a plane, or a cylinder), so the corners written to the truth are the
same mapping that drew the pixels.
"""
import numpy as np
from PIL import Image, ImageDraw


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
