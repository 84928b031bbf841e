#!/usr/bin/env python3
"""Architecture check: runtime/ names no extension.

usage: check_runtime_names.py [--allowlist FILE] [--names chiplet,spu] [DIR...]

The runtime reaches extensions through registries (isa_ext/Extensions.h), never by name: no
source under runtime/ has an identifier with an extension's name as one of its words
(camelCase, snake_case or ALL_CAPS; plural too: chiplet, Chiplets, chipletJobs, SPU_MODE) or
includes a header from an extension's folder (isa_ext/NAME/...). Comments and string literals
are not looked at (messages and docs may name extensions). Today's hits are listed in
tests/arch/runtime_names.txt as "FILE IDENTIFIER" or "FILE #include PATH": an unlisted one
fails, and so does a listed one that is gone (the list only shrinks).
"""
import os
import re
import sys

import archlib

WORDS = re.compile(r'[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+')


def names_in(ident, names):
    for w in WORDS.findall(ident):
        w = w.lower()
        if w in names or (w.endswith('s') and w[:-1] in names):
            return True
    return False


def scan(paths, names):
    found = {}
    alternatives = '|'.join(map(re.escape, sorted(names)))
    inc_re = re.compile(r'^isa_ext/(%s)/' % alternatives)
    # the identifiers that contain a name at all; names_in then splits them into words
    candidates = re.compile(r'\b\w*(?:%s)\w*' % alternatives, re.I)
    for f in archlib.cxxscan.source_files(paths):
        rel = os.path.relpath(f, archlib.ROOT)
        raw = archlib.cxxscan.read(f)
        for inc in archlib.cxxscan.includes(raw):
            if inc_re.match(inc):
                found[f'{rel} #include {inc}'] = ''
        text = archlib.cxxscan.strip(raw)
        for m in candidates.finditer(text):
            ident = m.group(0)
            if not ident[0].isdigit() and names_in(ident, names):
                found.setdefault(f'{rel} {ident}', f' (line {text.count(chr(10), 0, m.start()) + 1})')
    return found


def main(argv):
    allow = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'runtime_names.txt')
    names = {'chiplet', 'spu'}
    dirs = []
    it = iter(argv)
    for a in it:
        if a == '--allowlist':
            allow = next(it)
        elif a == '--names':
            names = {x.strip().lower() for x in next(it).split(',') if x.strip()}
        else:
            dirs.append(a)
    found = scan([os.path.join(archlib.ROOT, d) for d in dirs or ['runtime']], names)
    return archlib.check('check_runtime_names', found, allow, 'names an extension (not listed)',
                         'reach the extension through a registry (isa_ext/Extensions.h, the CLI '
                         'subcommand registry) instead of naming it in runtime/',
                         'is no longer there')


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
