#!/usr/bin/env python3
"""Architecture check: no function in timing/, power/ or runtime/ is longer than 150 lines.

usage: check_function_lengths.py [--max N] [--allowlist FILE] [DIR...]

Function bodies are measured by tools/dev/func_lengths.py (comments and literals stripped,
braces matched; from the line of the name to the closing brace). Today's offenders are listed in
tests/arch/long_functions.txt as "FILE FUNCTION": an unlisted function over the limit fails,
and so does a listed one that is no longer over it (shorten the list when you split one).
The interpreter's dispatch loop is excepted (it lives in ptx/, which is not scanned).
"""
import os
import sys

import archlib
import func_lengths  # tools/dev, on the path through archlib

DEFAULT_DIRS = ('timing', 'power', 'runtime')


def main(argv):
    limit = 150
    allow = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'long_functions.txt')
    dirs = []
    it = iter(argv)
    for a in it:
        if a == '--max':
            limit = int(next(it))
        elif a == '--allowlist':
            allow = next(it)
        else:
            dirs.append(a)
    found = {}
    for f in archlib.cxxscan.source_files(
            [os.path.join(archlib.ROOT, d) for d in dirs or DEFAULT_DIRS], func_lengths.SRC_EXT):
        rel = os.path.relpath(f, archlib.ROOT)
        for n, name, l0 in func_lengths.functions(f):
            if n > limit:
                key = f'{rel} {name}'
                prev = found.get(key)
                if prev is None or n > prev[0]:
                    found[key] = (n, l0)
    details = {k: f' ({n} lines, line {l0})' for k, (n, l0) in found.items()}
    return archlib.check('check_function_lengths', details, allow,
                         f'function longer than {limit} lines',
                         'split it into named steps (docs/architecture.md); the list of known '
                         'offenders only shrinks',
                         f'is no longer over {limit} lines')


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
