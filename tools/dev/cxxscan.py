"""Shared C++ source scanning for the tools in tools/dev and the architecture checks (tests/arch).

strip(text) blanks comments and the contents of string and character literals (raw strings
too) with one regular expression, keeping every newline so line numbers stay true; it can keep
or drop preprocessor lines. includes(text) lists a file's quoted #include paths (comments
ignored). source_files(paths) walks folders for C++ sources in a stable order.
"""
import os
import re

SRC_EXT = ('.cpp', '.cc', '.cu', '.h', '.hpp', '.cuh', '.inc')

# the lookahead lets the engine skip most positions at once (5x faster than without)
_TOKEN = re.compile(
    r'(?=[/"\'uULR])(?:'
    r'(?P<raw>(?<![\w])(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\((?s:.*?)\)(?P=delim)")'
    r'|(?P<line>//[^\n]*(?:(?<=\\)\n[^\n]*)*)'
    r'|(?P<block>/\*(?s:.*?)(?:\*/|\Z))'
    r'|(?P<str>"(?:\\.|[^"\\\n])*(?:"|$))'
    r"|(?P<chr>(?<![\w'])(?:u8|[uUL])?'(?:\\.|[^'\\\n])+'))",
    re.M)

_PREPROC = re.compile(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', re.M)

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def _blank(m):
    kind = m.lastgroup
    text = m.group(0)
    nl = '\n' * text.count('\n')
    if kind in ('line', 'block'):
        return ' ' + nl
    if kind == 'chr':
        return "''"
    return '""' + nl


def strip(text, preprocessor=False):
    """Comments become a blank, literals empty ("" or ''), newlines kept. Preprocessor lines
    (with continuations) are kept when `preprocessor`, else blanked to their newlines."""
    out = _TOKEN.sub(_blank, text)
    if not preprocessor:
        out = _PREPROC.sub(lambda m: '\n' * m.group(0).count('\n'), out)
    return out


def _blank_comments(m):
    if m.lastgroup in ('line', 'block'):
        return ' ' + '\n' * m.group(0).count('\n')
    return m.group(0)


def includes(text):
    """The quoted #include paths of a file, in order (commented-out ones left out)."""
    return _INCLUDE.findall(_TOKEN.sub(_blank_comments, text))


def read(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()


def source_files(paths, ext=SRC_EXT, skip=('build',)):
    """Files ending in `ext` under each path (or the path itself), sorted, skipping folders named
    in `skip` and hidden folders."""
    files = []
    for p in paths:
        if os.path.isfile(p):
            files.append(p)
            continue
        for d, dirs, fs in os.walk(p):
            dirs[:] = sorted(x for x in dirs if x not in skip and not x.startswith('.'))
            files.extend(os.path.join(d, f) for f in sorted(fs) if f.endswith(ext))
    return files
