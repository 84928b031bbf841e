#!/usr/bin/env python3
"""Corrupts the embedded fat binary of an nvcc-built program (tests/cli/scale.cu) in several ways
and runs each copy: every one must print an error naming the fat binary and not run the kernel,
never die of a signal (a crash) and never hang.

usage: corrupt_fatbin.py PROGRAM WORKDIR [ENV=VALUE ...]"""
import os
import shutil
import signal
import struct
import subprocess
import sys

MAGIC = 0xBA55ED50


def fatbin_section(elf):
    """File offset and size of the .nv_fatbin section of an ELF64 little-endian image."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    def section(i):
        return struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
    names = section(shstrndx)
    for i in range(shnum):
        s = section(i)
        nm_at = names[4] + s[0]
        name = elf[nm_at:elf.index(b"\0", nm_at)].decode()
        if name == ".nv_fatbin":
            return s[4], s[5]
    sys.exit("no .nv_fatbin section")


def main():
    prog, work = sys.argv[1], sys.argv[2]
    env = dict(os.environ)
    for kv in sys.argv[3:]:
        k, v = kv.split("=", 1)
        env[k] = v
    os.makedirs(work, exist_ok=True)
    elf = bytearray(open(prog, "rb").read())
    sec, size = fatbin_section(elf)
    # the section may hold several containers (the program's wrapper names one of them): each
    # case corrupts every container the same way
    containers = []
    at = sec
    while at + 16 <= sec + size:
        magic, version, hsize, body = struct.unpack_from("<IHHQ", elf, at)
        if magic == 0:
            at += 8
            continue
        assert magic == MAGIC, hex(magic)
        containers.append((at, hsize, body))
        at += hsize + body
    assert containers

    def cases_for(off, hsize, body):
        e = off + hsize  # the first entry's header
        ehsize, = struct.unpack_from("<I", elf, e + 4)
        payload, = struct.unpack_from("<Q", elf, e + 8)
        return {
            "container_body_huge": [(off + 8, "<Q", 1 << 40)],
            "container_body_max": [(off + 8, "<Q", 0xFFFFFFFFFFFFFFF0)],
            "container_body_past_section": [(off + 8, "<Q", size + 4096)],
            "container_header_huge": [(off + 6, "<H", 0xFFFF)],
            "truncated_container": [(off + 8, "<Q", 40)],
            "truncated_entry_payload": [(off + 8, "<Q", ehsize + payload // 2)],
            "entry_header_huge": [(e + 4, "<I", 0xFFFFFFF0)],
            "entry_payload_huge": [(e + 8, "<Q", 1 << 40)],
            "entry_payload_max": [(e + 8, "<Q", 0xFFFFFFFFFFFFFF00)],
            "entry_zstd_huge": [(e + 40, "<Q", 0x8000), (e + 16, "<I", 64), (e + 56, "<Q", 1 << 40)],
            "entry_lz4_past_payload": [(e + 40, "<Q", 0x2000), (e + 16, "<I", 0xFFFFFFFF),
                                       (e + 56, "<Q", 100)],
            "entry_kind_bad": [(e, "<H", 7)],
            "bad_magic": [(off, "<I", 0x12345678)],
            "bad_version": [(off + 4, "<H", 9)],
        }

    cases = {}
    for c in containers:
        for name, patches in cases_for(*c).items():
            cases.setdefault(name, []).extend(patches)
    failures = 0
    for name, patches in cases.items():
        img = bytearray(elf)
        for at, fmt, value in patches:
            struct.pack_into(fmt, img, at, value)
        path = os.path.join(work, name)
        with open(path, "wb") as f:
            f.write(img)
        os.chmod(path, 0o755)
        try:
            r = subprocess.run([path], env=env, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            print(f"{name}: hung (60 s)")
            failures += 1
            continue
        out = r.stdout + r.stderr
        if r.returncode < 0:
            print(f"{name}: killed by signal {signal.Signals(-r.returncode).name}\n{out}")
            failures += 1
        elif "a[5]=10" in out:  # the kernel ran (tests/cli/scale.cu)
            print(f"{name}: ran as if the fat binary were intact\n{out}")
            failures += 1
        elif "fat binary" not in out and "fatbin" not in out:
            print(f"{name}: exit {r.returncode} without naming the fat binary\n{out}")
            failures += 1
        else:
            first = next((l for l in out.splitlines() if "fat" in l), "")
            print(f"{name}: exit {r.returncode}: {first.strip()}")
    if failures:
        print(f"FAIL: {failures} of {len(cases)} corrupted programs crashed, hung or ran")
        return 1
    print(f"PASS: {len(cases)} corrupted programs each gave an error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
