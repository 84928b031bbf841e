#!/usr/bin/env python3
"""Histogram of PTX instruction spellings and directive lines in a PTX corpus.

Usage: ptx_histogram.py <corpus_dir> [opcodes_out] [directives_out]
Scans <corpus_dir>/**/*.ptx. Comments, labels, predicate guards (@%p1 / @!%p1),
braces and the contents of debug sections (.section ... { ... }) are ignored.
An instruction spelling is the opcode with all its modifiers and no operands
(e.g. ld.global.nc.v4.f32). A directive is the first token of a line (after
labels and braces) that starts with '.'. Output lines: "<count> <spelling>",
sorted by descending count, then name.
"""
import collections
import os
import re
import sys

LABEL = re.compile(r'^([$%\w]+)\s*:(?!:)\s*')
PRED = re.compile(r'^@!?[$%\w]+\s*')


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def scan(text, ops, dirs):
    text = strip_comments(text)
    in_section = False
    depth = 0
    cont = False  # inside a multi-line instruction (e.g. call with argument lists)
    for raw in text.split('\n'):
        line = raw.strip()
        if not line:
            continue
        if in_section:
            depth += line.count('{') - line.count('}')
            if depth <= 0 and '}' in line:
                in_section = False
            continue
        if line.startswith('.section'):
            dirs['.section'] += 1
            in_section = True
            depth = line.count('{') - line.count('}')
            if depth <= 0 and '{' in line:
                in_section = False
            continue
        for stmt in re.split(r'(?<=;)', line):
            s = stmt.strip()
            if not s:
                continue
            if cont:
                if s.endswith(';'):
                    cont = False
                continue
            while True:
                s2 = s.lstrip('{}').strip()
                m = LABEL.match(s2)
                if m:
                    s2 = s2[m.end():]
                if s2 == s:
                    break
                s = s2
            if not s:
                continue
            s = PRED.sub('', s)
            tok = re.split(r'[\s,;(]', s, 1)[0]
            if not tok:
                continue
            if tok.startswith('.'):
                dirs[tok] += 1
                continue
            if not re.match(r'^[a-z][\w.]*$', tok):
                continue  # punctuation / continuation of a declaration
            ops[tok] += 1
            if not s.rstrip().endswith(';'):
                cont = True


def write(counter, path):
    with open(path, 'w') as f:
        for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])):
            f.write('%d %s\n' % (v, k))


def main():
    root = sys.argv[1]
    ops_out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, 'opcodes.txt')
    dirs_out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(root, 'directives.txt')
    ops, dirs = collections.Counter(), collections.Counter()
    n = 0
    for dp, _, files in os.walk(root):
        for fn in sorted(files):
            if fn.endswith('.ptx'):
                with open(os.path.join(dp, fn)) as f:
                    scan(f.read(), ops, dirs)
                n += 1
    write(ops, ops_out)
    write(dirs, dirs_out)
    print('%d files, %d distinct instruction spellings (%d total), %d distinct directives'
          % (n, len(ops), sum(ops.values()), len(dirs)))


if __name__ == '__main__':
    main()
