#!/usr/bin/env python3
"""Writes the reference pixels the PngSuite tests compare against.

For every valid PngSuite file (not x*), decode it with pypng -- a pure-Python PNG decoder that
shares no code with libpng -- to 8-bit RGBA and record width, height and the 64-bit FNV-1a digest
of the pixel bytes. pypng's sBIT handling is switched off because libpng ignores sBIT unless
asked, and both round 16-bit samples to 8 bits the same way (round(v / 257)).

    pip install pypng
    python3 scripts/make-pngsuite-reference.py ../shared/corpora/pngsuite > Tests/PresenceImagingTests/Resources/pngsuite-reference.json
"""
import json
import os
import sys

import png


def fnv1a64(data: bytes) -> str:
    value = 0xCBF29CE484222325
    for byte in data:
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def main(folder: str) -> None:
    reference = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".png") or name.startswith("x"):
            continue
        reader = png.Reader(filename=os.path.join(folder, name))
        reader.preamble()
        reader.sbit = None
        width, height, rows, _ = reader.asRGBA8()
        pixels = bytearray()
        for row in rows:
            pixels.extend(bytes(row))
        reference[name] = {"width": width, "height": height, "rgba_fnv1a64": fnv1a64(bytes(pixels))}
    json.dump(reference, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
