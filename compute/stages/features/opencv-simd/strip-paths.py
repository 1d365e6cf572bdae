#!/usr/bin/env python3
"""Replaces the build machine's paths inside opencv.cjs's embedded WebAssembly (the source file
names OpenCV's error messages carry, the Python in its build information) by placeholders of the
same length, so no offset in the module moves. Usage: strip-paths.py opencv.cjs <build dir>"""
import base64, re, sys

path, build_dir = sys.argv[1], sys.argv[2].rstrip("/") + "/"
text = open(path).read()
match = re.search(r"data:application/octet-stream;base64,([A-Za-z0-9+/=]+)", text)
wasm = base64.b64decode(match.group(1))

def same_length(old: bytes, new: bytes) -> bytes:
    return new[: len(old)].ljust(len(old), b"_")

replacements = {build_dir.encode(): same_length(build_dir.encode(), b"<src>/")}
for found in set(re.findall(rb"/(?:root|home)/[A-Za-z0-9_./+-]*", wasm)):
    replacements[found] = same_length(found, b"<host>")
for old, new in replacements.items():
    wasm = wasm.replace(old, new)
text = text[: match.start(1)] + base64.b64encode(wasm).decode() + text[match.end(1) :]
open(path, "w").write(text)
