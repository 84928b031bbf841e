#!/usr/bin/env python3
"""Architecture check: no circle between the project's files.

usage: check_include_cycles.py [--allowlist FILE] [--print]

A unit is Foo.h + Foo.cpp (+ Foo.inc, Foo.def, ...) in one folder; unit A depends on unit B when
a file of A includes a header of B (quoted #include, resolved against the including file's
folder, then the project root, then the project's include/ folders; comments ignored; system and
generated headers are not units). A circle is a
strongly connected set of two or more units. Today's circles are listed in
tests/arch/include_cycles.txt, one a line as their units sorted and joined by " ": a circle not
listed fails, and so does a listed one that is gone or has changed members (update the line).
--print shows every circle with one include chain around it.
"""
import os
import sys

import archlib

SCANNED = ('base', 'ptx', 'timing', 'power', 'runtime', 'sim', 'isa_ext', 'bench', 'samples',
           'tools', 'tests')


def unit_of(rel):
    return os.path.splitext(rel)[0]


EXT = archlib.cxxscan.SRC_EXT + ('.def',)


def build_graph(root):
    files = archlib.cxxscan.source_files([os.path.join(root, d) for d in SCANNED], EXT)
    rels = {os.path.relpath(f, root) for f in files}
    # headers of include/ folders (isa_ext/*/include), found by their path below include/
    below_include = {}
    for r in sorted(rels):
        head, sep, tail = r.partition('/include/')
        if sep:
            below_include.setdefault(tail, r)
    edges = {}   # unit -> {unit: (file, included)}
    for f in files:
        rel = os.path.relpath(f, root)
        u = unit_of(rel)
        out = edges.setdefault(u, {})
        for inc in archlib.cxxscan.includes(archlib.cxxscan.read(f)):
            target = None
            for cand in (os.path.normpath(os.path.join(os.path.dirname(rel), inc)),
                         os.path.normpath(inc)):
                if cand in rels:
                    target = cand
                    break
            if target is None:
                target = below_include.get(os.path.normpath(inc))
            if target is None:
                continue
            v = unit_of(target)
            if v != u:
                out.setdefault(v, (rel, inc))
    return edges


def sccs(edges):
    """Tarjan's strongly connected components (iterative), each a sorted list."""
    index, low, on, stack, res = {}, {}, set(), [], []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    res.append(sorted(comp))
    return sorted(res)


def chain(edges, comp):
    """One circle through the component's first unit, as "a.cpp includes b.h" steps."""
    members = set(comp)
    start = comp[0]
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, {})):
            if w not in members:
                continue
            if w == start:
                steps, x = [edges[v][w]], v
                while prev[x] is not None:
                    steps.append(edges[prev[x]][x])
                    x = prev[x]
                return [f'{f} includes "{i}"' for f, i in reversed(steps)]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return []


def main(argv):
    allow = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'include_cycles.txt')
    show = False
    it = iter(argv)
    for a in it:
        if a == '--allowlist':
            allow = next(it)
        elif a == '--print':
            show = True
        else:
            sys.exit(f'check_include_cycles.py: unknown argument {a}')
    edges = build_graph(archlib.ROOT)
    comps = sccs(edges)
    found = {}
    for comp in comps:
        found[' '.join(comp)] = '\n    ' + '\n    '.join(chain(edges, comp))
    if show:
        for k, v in found.items():
            print(k + v)
    return archlib.check('check_include_cycles', found, allow, 'circle between units (not listed)',
                         'break it (an interface header, or move the shared part into its own '
                         'unit); a listed circle must match the units exactly',
                         'is no longer a circle (or its units changed)')


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
