"""Helpers shared by the architecture checks (tests/arch): the allowlist rule and the scanner.

An allowlist holds one entry per line (a line starting with '#' is a comment). A check passes when the entries
it finds today are exactly covered: a finding not listed fails (a new offender), and a listed
entry no longer found fails too (the list must stay true, so it only shrinks).
"""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'dev'))
import cxxscan  # noqa: E402,F401


def read_allowlist(path):
    entries = []
    try:
        f = open(path, encoding='utf-8')
    except OSError as e:
        sys.exit(f'{path}: cannot read the allowlist: {e.strerror}')
    with f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if line and not line.startswith('#'):
                entries.append((' '.join(line.split()), n))
    return entries


def check(name, found, allowlist_path, what, hint, gone):
    """`found`: {entry: detail}. Prints the differences with the allowlist (`what`: a finding
    not listed, `gone`: why a listed entry is stale); returns the exit status (0 when the list is
    exactly true)."""
    rel = os.path.relpath(allowlist_path, ROOT)
    listed = read_allowlist(allowlist_path)
    listed_set = {e for e, _ in listed}
    rc = 0
    for e in sorted(found):
        if e not in listed_set:
            print(f'{name}: {what}: {e}{found[e]}')
            rc = 1
    if rc:
        print(f'{name}: {hint}')
    for e, n in listed:
        if e not in found:
            print(f'{rel}:{n}: "{e}" is listed but {gone}: remove the line (the list only '
                  f'shrinks)')
            rc = 1
    seen = set()
    for e, n in listed:
        if e in seen:
            print(f'{rel}:{n}: "{e}" is listed twice')
            rc = 1
        seen.add(e)
    if rc == 0:
        print(f'{name}: ok ({len(found)} allowlisted in {rel})')
    return rc
