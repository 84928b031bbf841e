#!/usr/bin/env python3
"""Decodes a sweep file of tools/hw/mufu_sweep.cu (NAME_FIRST.d, optionally .xz) into the result
bits, one little-endian u32 per input, for analysis and tools/hw/mufu_fit.cpp.

  tools/hw/mufu_decode.py IN.d[.xz] OUT.u32
"""
import array, lzma, sys


def decode(data):
    out = array.array("I")
    prev = 0
    i, n = 0, len(data)
    while i < n:
        z = data[i]
        i += 1
        if z == 255:
            z = int.from_bytes(data[i:i + 4], "little")
            i += 4
        delta = (z >> 1) ^ -(z & 1)
        prev = (prev + delta) & 0xFFFFFFFF
        out.append(prev)
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    data = (lzma.open if src.endswith(".xz") else open)(src, "rb").read()
    out = decode(data)
    if sys.byteorder != "little":
        out.byteswap()
    with open(dst, "wb") as f:
        out.tofile(f)
    print("%s: %d results" % (src, len(out)))


if __name__ == "__main__":
    main()
