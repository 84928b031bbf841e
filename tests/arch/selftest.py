#!/usr/bin/env python3
"""Self-test of the architecture checks' scanners (ctest arch_scanner_selftest): literals and
comments that would fool them, the allowlist rule in both directions, and a synthetic circle."""
import io
import os
import sys
import tempfile
from contextlib import redirect_stdout

import archlib
import check_include_cycles
import check_runtime_names
import func_lengths

cxx = archlib.cxxscan
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


# strip: comments and literals blanked, line count kept
src = ('int a = 1\'000; char c = \'}\'; const char *s = "{ // not a comment";\n'
       '/* { \n } */ auto r = R"x(\n{ "quoted" }\n)x"; // {\n'
       '#define BRACE {\n'
       'int chipletNotReally = 0; // chipletInComment\n')
out = cxx.strip(src)
expect(out.count('\n') == src.count('\n'), 'strip keeps the newlines')
expect('{' not in out and '}' not in out, f'strip blanks braces in literals/comments: {out!r}')
expect("1'000" in out, 'a digit separator is not a character literal')
expect('chipletInComment' not in out and 'chipletNotReally' in out, 'comments stripped')
expect(cxx.includes('#include "a.h"\n// #include "b.h"\n/*\n#include "c.h"\n*/\n  #  include "d.h"\n')
       == ['a.h', 'd.h'], 'includes skips commented-out lines')

# function lengths: braces inside literals do not end a body; the span starts at the declaration
body = 'namespace n {\nstruct S { int f() const; };\nint\nlong_one(int x) {\n' + \
    '  const char *t = "}}}";\n' * 10 + '  return x;\n}\n}\n'
rows = func_lengths.functions('x.cpp', body)
expect(rows == [(14, 'long_one', 3)], f'func_lengths: {rows}')

# identifier words
for ident, hit in [('chipletsCommand', True), ('SPU_MODE', True), ('Chiplets', True),
                   ('numCpus', False), ('spurious', False), ('ChipletsX', True), ('cpuSpus', True)]:
    expect(check_runtime_names.names_in(ident, {'chiplet', 'spu'}) == hit, f'names_in({ident})')

# runtime names: identifiers and extension includes, not comments, strings or other words
with tempfile.TemporaryDirectory() as d:
    f = os.path.join(d, 'x.cpp')
    with open(f, 'w') as out:
        out.write('#include "isa_ext/spu/include/spu.h"\n#include "isa_ext/Extensions.h"\n'
                  'int chipletX; // chipletY\nconst char *s = "spu chiplet";\nint numCpus, spurious;\n')
    got = {k.split(' ', 1)[1]: v for k, v in check_runtime_names.scan([f], {'chiplet', 'spu'}).items()}
    expect(got == {'#include isa_ext/spu/include/spu.h': '', 'chipletX': ' (line 3)'},
           f'runtime names scan: {got}')

# circles: a <-> b through a header, c alone
edges = {'a': {'b': ('a.cpp', 'b.h')}, 'b': {'a': ('b.h', 'a.h')}, 'c': {'a': ('c.cpp', 'a.h')}}
expect(check_include_cycles.sccs(edges) == [['a', 'b']], 'sccs finds the circle only')
expect(check_include_cycles.chain(edges, ['a', 'b']) == ['a.cpp includes "b.h"',
                                                         'b.h includes "a.h"'], 'chain')

# the allowlist rule: exact in both directions
with tempfile.TemporaryDirectory() as d:
    lst = os.path.join(d, 'list.txt')
    with open(lst, 'w') as f:
        f.write('# comment\nx one\nx two\n')
    for found, rc in [({'x one': '', 'x two': ''}, 0), ({'x one': ''}, 1),
                      ({'x one': '', 'x two': '', 'x three': ''}, 1)]:
        with redirect_stdout(io.StringIO()):
            got = archlib.check('t', found, lst, 'bad thing', 'fix it', 'gone')
        expect(got == rc, f'allowlist rule for {sorted(found)}: {got} != {rc}')

for f in failures:
    print('FAIL:', f)
print('selftest:', 'ok' if not failures else f'{len(failures)} failure(s)')
sys.exit(1 if failures else 0)
