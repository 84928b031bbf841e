#!/usr/bin/env python3
"""Compares two ptxsim stats JSON files counter by counter.

Usage: compare_stats.py BEFORE.json AFTER.json

Every per-launch statistic in BEFORE must exist in AFTER with exactly the same value (AFTER may
have more: new counters are allowed, changed or lost ones are not); the launch count, kernel
names and each kernel's instruction counts must match. Exit status 0 when equal, 1 otherwise,
with one line per difference.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    before = json.load(open(sys.argv[1]))
    after = json.load(open(sys.argv[2]))
    diffs = []
    bl, al = before.get("launches", []), after.get("launches", [])
    if len(bl) != len(al):
        diffs.append(f"launch count {len(bl)} -> {len(al)}")
    for i, (b, a) in enumerate(zip(bl, al)):
        for key, value in b.items():
            if key not in a:
                diffs.append(f"launch {i} ({b.get('kernel')}): '{key}' is missing")
            elif a[key] != value:
                diffs.append(f"launch {i} ({b.get('kernel')}): '{key}' {value} -> {a[key]}")
    for kb, ka in zip(before.get("kernels", []), after.get("kernels", [])):
        for key in ("name", "launches", "ctas", "thread_insts", "warp_insts"):
            if kb.get(key) != ka.get(key):
                diffs.append(f"kernel {kb.get('name')}: '{key}' {kb.get(key)} -> {ka.get(key)}")
    for d in diffs[:50]:
        print(d)
    if diffs:
        print(f"{len(diffs)} differences")
        return 1
    print(f"identical: {len(bl)} launches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
