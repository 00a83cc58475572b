#!/usr/bin/env python3
"""Thumbnails a folder with Pillow and pyvips for `presence bench`: the same corpus, 96x96
centre-cropped PNGs at the same zlib level, one thread, repeated for at least --min-seconds. Prints one JSON object per
peer. Installs Pillow and pyvips (with its binary libvips) from PyPI when they are missing."""
import argparse
import io
import json
import os
import resource
import subprocess
import sys
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")  # one thread, as Presence's run


def ensure(module, packages):
    try:
        return __import__(module)
    except Exception:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *packages],
                       check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            return __import__(module)
        except Exception as error:  # noqa: BLE001 - report any import failure as "unavailable"
            return error


def run(name, thumbnail, inputs, size, minimum):
    made = 0
    start = time.perf_counter()
    while True:
        for data in inputs:
            thumbnail(data, size)
            made += 1
        elapsed = time.perf_counter() - start
        if elapsed >= minimum:
            break
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"peer": name, "images": made, "seconds": elapsed, "imagesPerSecond": made / elapsed, "peakResidentBytes": peak}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--size", type=int, default=96)
    parser.add_argument("--min-seconds", type=float, default=2.0)
    parser.add_argument("--peer", choices=["pillow", "pyvips"], required=True)
    parser.add_argument("--png-level", type=int, default=3, help="zlib level of the PNGs, as Presence's")
    args = parser.parse_args()
    names = sorted(n for n in os.listdir(args.folder) if n.endswith((".png", ".jpg")))
    inputs = [open(os.path.join(args.folder, n), "rb").read() for n in names]

    if args.peer == "pillow":
        PIL = ensure("PIL", ["pillow"])
        if isinstance(PIL, Exception):
            print(json.dumps({"peer": "pillow", "error": str(PIL)}))
            return
        from PIL import Image, ImageOps

        def pillow(data, size):
            image = Image.open(io.BytesIO(data))
            image.draft("RGB", (size * 2, size * 2))  # JPEG shrink-on-load, as Presence does
            image = ImageOps.fit(image, (size, size), Image.LANCZOS)
            out = io.BytesIO()
            image.save(out, "PNG", compress_level=args.png_level)

        print(json.dumps(run("pillow", pillow, inputs, args.size, args.min_seconds)))
    else:
        pyvips = ensure("pyvips", ["pyvips", "pyvips-binary"])
        if isinstance(pyvips, Exception):
            print(json.dumps({"peer": "pyvips", "error": str(pyvips)}))
            return

        def vips(data, size):
            image = pyvips.Image.thumbnail_buffer(data, size, height=size, crop="centre")
            image.write_to_buffer(".png", compression=args.png_level)

        print(json.dumps(run("pyvips", vips, inputs, args.size, args.min_seconds)))


if __name__ == "__main__":
    main()
