#!/usr/bin/env python3
"""Fails when a generated stub file (runtime/api/Unsupported.cpp, runtime/driver/DriverStubs.cpp)
still carries a stub for a call the library now implements (regenerate it with
runtime/api/gen_unsupported.py or runtime/driver/gen_driver_stubs.py).

usage: check_stubs.py STUBS_CPP OBJECT_FILE...   (the library's other object files)"""
import re
import subprocess
import sys

stubs = set(re.findall(r"PTXSIM_(?:CU_)?STUB\((\w+)\)", open(sys.argv[1]).read()))
defined = set()
for obj in sys.argv[2:]:
    out = subprocess.run(["nm", "--defined-only", obj], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TW":
            defined.add(parts[2])
stale = sorted(stubs & defined)
for name in stale:
    print(f"stale stub: {name} is implemented; regenerate {sys.argv[1]}")
print(f"{len(stubs)} stubs, {len(stale)} stale")
sys.exit(1 if stale else 0)
