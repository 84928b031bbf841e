#!/usr/bin/env python3
"""List the longest C++ function bodies under the given folders.

usage: func_lengths.py [--max N] [--top K] DIR_OR_FILE...

A heuristic scanner (comments and literals stripped by cxxscan.py, braces
matched): a '{' outside any function whose preceding declaration text has a
parameter list opens a function; its length is the number of source lines from
the first line of its declaration (return type, template line) to the closing
brace. With --max N it exits 1 when a function is longer than N lines (the
interpreter's dispatch loop may be excepted with --except NAME).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cxxscan  # noqa: E402

SRC_EXT = ('.cpp', '.cc', '.h', '.hpp', '.inc')


CONTROL = re.compile(r'^\s*(if|for|while|switch|catch|do|else|try)\b')


_STRUCT = re.compile(r'[;{}\n]')


def functions(path, text=None):
    """(lines, name, first line) of every function body in a file (or in `text`)."""
    if text is None:
        text = cxxscan.read(path)
    text = cxxscan.strip(text)
    stack = []          # kinds: 'ns', 'class', 'func', 'other'
    starts = []         # (name, line) for func
    decl_start = 0
    line = 1
    res = []
    for m in _STRUCT.finditer(text):
        c = m.group(0)
        idx = m.start()
        if c == '\n':
            line += 1
        elif c == ';':
            if 'func' not in stack:
                decl_start = idx + 1
        elif c == '{':
            in_func = 'func' in stack
            kind = 'other'
            if not in_func:
                decl = text[decl_start:idx]
                d = decl.strip()
                if re.search(r'\bnamespace\b', d) or d.startswith('extern ""'):
                    kind = 'ns'
                elif re.search(r'\b(class|struct|union|enum)\b', d) and '(' not in d.split('=')[0]:
                    kind = 'class'
                elif '(' in d and not CONTROL.match(d) and not d.endswith('='):
                    kind = 'func'
                    m2 = re.search(r'([~\w:]+(?:operator\s*[^\s(]+)?)\s*\(', d)
                    name = m2.group(1) if m2 else '?'
                    first = decl_start + (len(decl) - len(decl.lstrip()))
                    starts.append((name, line - text.count('\n', first, idx)))
            stack.append(kind)
            if not in_func:
                decl_start = idx + 1
        else:  # '}'
            if stack:
                kind = stack.pop()
                if kind == 'func':
                    name, l0 = starts.pop()
                    res.append((line - l0 + 1, name, l0))
            if 'func' not in stack:
                decl_start = idx + 1
    return res


def main(argv):
    mx, top, excepts, paths = None, 20, [], []
    it = iter(argv)
    for a in it:
        if a == '--max':
            mx = int(next(it))
        elif a == '--top':
            top = int(next(it))
        elif a == '--except':
            excepts.append(next(it))
        else:
            paths.append(a)
    rows = []
    for p in paths:
        files = [p] if os.path.isfile(p) else [
            os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs if f.endswith(SRC_EXT)]
        for f in sorted(files):
            for n, name, l0 in functions(f):
                rows.append((n, f'{f}:{l0}', name))
    rows.sort(reverse=True)
    for n, where, name in rows[:top]:
        print(f'{n:6d}  {where}  {name}')
    if mx is not None:
        bad = [r for r in rows if r[0] > mx and r[2].split('::')[-1] not in excepts]
        if bad:
            print(f'{len(bad)} function(s) longer than {mx} lines', file=sys.stderr)
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
