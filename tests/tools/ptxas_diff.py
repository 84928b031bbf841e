#!/usr/bin/env python3
"""Differential testing of `ptxsim ptx check` against `ptxas`.

For every instruction line of the given PTX files this generates single-edit mutants (swap a
modifier for a related spelling, drop/duplicate/insert a modifier, drop/duplicate/swap operands,
replace an operand with a register of another declared type, an immediate, a float literal, a
label, an address, change a state space or vector width), writes them in batches (at most one
mutant per line per batch, every other line unchanged), runs both tools on each batch and compares,
line by line, whether each tool reports an error on the mutated line.

  FP  ptxas accepts, ptxsim rejects   (false positive: must be fixed)
  FN  ptxas rejects, ptxsim accepts   (missed error)

Usage (by hand; not part of ctest):
  tests/tools/ptxas_diff.py [--ptxsim BIN] [--max-per-line N] [--seed S] [-j N]
                            [--report out.txt] FILE.ptx...
The original files are checked first: a file ptxas accepts but ptxsim rejects is reported too.
Exit status: 1 if there are false positives, else 0.

Notes: ptxas stops at the first syntax error, sometimes crashes or hangs on a mutant, and skips
some checks when other lines have errors. Only a line ptxas complains about counts as rejected;
lines it says nothing about in a run that did not end normally are retried (bisecting the batch),
and every false positive is confirmed by running its mutant alone. Mutants are deduplicated by
their text with numbers blanked, so repeated nvcc idioms are compared once.

Typical runs:
  ls build/tests/kernel_ptx/*/{04,07,09,17,18,20,27,31,33,46}_*.ptx > /tmp/sample.txt
  tests/tools/ptxas_diff.py --ptxsim build/bin/ptxsim --max-per-line 10 $(cat /tmp/sample.txt)
  tests/tools/ptxas_diff.py --ptxsim build/bin/ptxsim --max-per-line 25 tests/ptx/valid/*.ptx
"""

import argparse
import collections
import os
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ------------------------------------------------------------------ spellings


def load_spellings():
    mods, types = [], []
    with open(os.path.join(ROOT, "ptx/ast/Modifiers.def")) as f:
        for m in re.finditer(r'^MOD\(\w+,\s*"([^"]+)"\)', f.read(), re.M):
            mods.append("." + m.group(1))
    with open(os.path.join(ROOT, "ptx/ast/Types.def")) as f:
        for m in re.finditer(r'^TYPE\(\w+,\s*"([^"]+)"', f.read(), re.M):
            types.append("." + m.group(1))
    groups = []
    with open(os.path.join(ROOT, "ptx/sema/OpcodeTable.cpp")) as f:
        text = f.read()
    sets = text[text.find("kSets[]"):text.find("struct Row")]
    for m in re.finditer(r'\{"(\w+)",\s*((?:"[^"]*"\s*)+)\}', sets):
        alts = "".join(re.findall(r'"([^"]*)"', m.group(2)))
        groups.append(alts.split("|"))
    # Alternatives written inline in rows (`.lo|.hi`, `.and|.or`).
    rows = text[text.find("kRows[]"):]
    for m in re.finditer(r'(?:^|[\s\[])((?:\.[\w:]+\|)+\.[\w:]+)', rows):
        groups.append(m.group(1).split("|"))
    groups.append(types)
    groups.append([".global", ".shared", ".local", ".const", ".param", ".shared::cta",
                   ".shared::cluster", ".tex"])
    groups.append([".v2", ".v4", ".v8"])
    return mods, types, groups


MODS, TYPES, GROUPS = load_spellings()
RELATED = collections.defaultdict(set)
for g in GROUPS:
    for a in g:
        RELATED[a].update(x for x in g if x != a)
INSERTABLE = [".ftz", ".sat", ".cc", ".volatile", ".relaxed", ".acquire", ".release", ".gpu",
              ".cta", ".uni", ".approx", ".rn", ".rz", ".wide", ".hi", ".lo", ".v2", ".v4", ".nc",
              ".sync", ".aligned", ".shared", ".global", ".local", ".to", ".full", ".noftz",
              ".relu", ".satfinite", ".L2::128B", ".L1::evict_last", ".ca", ".cg", ".b32",
              ".u32", ".f32", ".s64", ".pred"]

# ------------------------------------------------------------------ PTX lines

FUNC_RE = re.compile(r"^\s*(?:\.(?:visible|weak|extern)\s+)*\.(entry|func)\b")
REG_RE = re.compile(r"^\s*\.reg\s+(?:\.v\d\s+)?(\.\w+)\s+(.*);")
LABEL_RE = re.compile(r"^\s*([$%\w]+):")
INSTR_RE = re.compile(r"^(\s*)(@!?%?\w+\s+)?([a-z][\w.:]*)(\s+([^;]*))?;\s*(//.*)?$")


def split_operands(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class FileInfo:
    def __init__(self, path):
        self.path = path
        with open(path) as f:
            self.lines = f.read().split("\n")
        self.target = "sm_80"
        self.func_of_line = []
        self.regs = collections.defaultdict(dict)    # func -> type -> [names]
        self.labels = collections.defaultdict(list)  # func -> [labels]
        func = -1
        for line in self.lines:
            m = re.match(r"^\s*\.target\s+(\w+)", line)
            if m:
                self.target = m.group(1)
            if FUNC_RE.match(line):
                func += 1
            self.func_of_line.append(func)
            m = REG_RE.match(line)
            if m and func >= 0:
                t = m.group(1)
                for d in m.group(2).split(","):
                    d = d.strip()
                    r = re.match(r"(%\w+)<(\d+)>", d)
                    if r and int(r.group(2)) > 1:
                        name = r.group(1) + "1"
                    elif r:
                        name = r.group(1) + "0"
                    elif re.match(r"^%\w+$", d):
                        name = d
                    else:
                        continue
                    self.regs[func].setdefault(t, []).append(name)
            m = LABEL_RE.match(line)
            if m and func >= 0 and not line.strip().startswith("."):
                self.labels[func].append(m.group(1))


# ------------------------------------------------------------------ mutants


def mutants(info, idx, rng, max_per_line):
    line = info.lines[idx]
    m = INSTR_RE.match(line)
    if not m:
        return []
    indent, guard, opword, ops_text = m.group(1), m.group(2) or "", m.group(3), m.group(5) or ""
    if "(" in ops_text or opword.startswith("call"):
        return []
    parts = opword.split(".")
    op, mods = parts[0], ["." + p for p in parts[1:]]
    ops = split_operands(ops_text)
    func = info.func_of_line[idx]
    regs = info.regs.get(func, {})
    labels = info.labels.get(func, [])
    out = []

    def emit(kind, new_mods, new_ops):
        text = indent + guard + op + "".join(new_mods)
        if new_ops:
            text += " " + ", ".join(new_ops)
        text += ";"
        if text != line:
            out.append((kind, text))

    # modifiers
    for i, md in enumerate(mods):
        rel = sorted(RELATED.get(md, ()))
        rng.shuffle(rel)
        for alt in rel[:8]:
            emit("mod-swap", mods[:i] + [alt] + mods[i + 1:], ops)
        for alt in rng.sample(MODS + TYPES, 2):
            emit("mod-foreign", mods[:i] + [alt] + mods[i + 1:], ops)
        emit("mod-drop", mods[:i] + mods[i + 1:], ops)
        emit("mod-dup", mods[:i + 1] + [md] + mods[i + 1:], ops)
    for alt in rng.sample(INSERTABLE, min(6, len(INSERTABLE))):
        pos = rng.randint(0, len(mods))
        emit("mod-insert", mods[:pos] + [alt] + mods[pos:], ops)
    # operands
    for i in range(len(ops)):
        emit("op-drop", mods, ops[:i] + ops[i + 1:])
    if ops:
        emit("op-dup", mods, ops + [ops[-1]])
    for i in range(len(ops) - 1):
        if ops[i] != ops[i + 1]:
            emit("op-swap", mods, ops[:i] + [ops[i + 1], ops[i]] + ops[i + 2:])
    addr_reg = (regs.get(".b64") or regs.get(".u64") or regs.get(".s64") or [None])[0]
    for i, o in enumerate(ops):
        repl = []
        for t, names in regs.items():
            if o not in names:
                repl.append(("op-regtype" + t, names[0]))
        repl += [("op-imm", "1"), ("op-fimm", "0f3F800000"), ("op-dimm", "0d3FF0000000000000"),
                 ("op-neg", "-1")]
        if labels:
            repl.append(("op-label", labels[0]))
        if addr_reg:
            repl.append(("op-addr", "[" + addr_reg + "]"))
        if o.startswith("["):
            inner = o[1:-1].split("+")[0].strip()
            repl.append(("op-unaddr", inner))
        if o.startswith("{"):
            elems = split_operands(o[1:-1])
            if len(elems) > 1:
                repl.append(("op-vec-shrink", "{" + ", ".join(elems[:-1]) + "}"))
            repl.append(("op-vec-grow", "{" + ", ".join(elems + [elems[-1]]) + "}"))
            repl.append(("op-vec-scalar", elems[0]))
        elif o.startswith("%") and not o.startswith("%p"):
            repl.append(("op-scalar-vec", "{" + o + ", " + o + "}"))
        if o.startswith("%") and re.search(r"\d$", o) is None:
            pass
        for kind, r in repl:
            if r != o:
                emit(kind, mods, ops[:i] + [r] + ops[i + 1:])
    if len(out) > max_per_line:
        out = rng.sample(out, max_per_line)
    return out


# ------------------------------------------------------------------ running the tools

PTXAS_LINE = re.compile(r"^ptxas \S+, line (\d+); (error|fatal)\s*: (.*)$")
OURS_LINE = re.compile(r"^[^:]+:(\d+):(\d+): error: (.*)$")


def arch_of(target):
    return target if target.startswith("sm_") else "sm_80"


def run_ptxas(path, arch):
    try:
        p = subprocess.run(["ptxas", "-O0", "-arch=" + arch, path, "-o", "/dev/null"],
                           capture_output=True, timeout=5, text=True)
    except subprocess.TimeoutExpired:  # ptxas hangs on some inputs: no information
        return False, {}, False, ["ptxas timed out"]
    errs, fatal_line, other = {}, None, []
    for l in (p.stdout + p.stderr).splitlines():
        m = PTXAS_LINE.match(l)
        if m:
            ln = int(m.group(1))
            errs.setdefault(ln, m.group(3))
            if m.group(2) == "fatal":
                fatal_line = ln
        elif "error" in l or ("fatal" in l and "aborted due to errors" not in l):
            other.append(l)
    # Only a run that ended normally says anything about the lines it did not complain about.
    clean = p.returncode in (0, 255) and fatal_line is None and not other
    return p.returncode == 0, errs, clean, other


def run_ours(ptxsim, path):
    p = subprocess.run([ptxsim, "ptx", "check", path], capture_output=True, text=True)
    errs = {}
    for l in (p.stdout + p.stderr).splitlines():
        m = OURS_LINE.match(l)
        if m:
            errs.setdefault(int(m.group(1)), m.group(3))
    if p.returncode not in (0, 1):
        errs[0] = "ptxsim exited with %d" % p.returncode
    return errs


def check_batch(ptxsim, info, batch):
    """batch: {line index: (kind, text)}. Returns [(idx, kind, text, ptxas_err, our_err)] and
    the indices ptxas said nothing about in a run that did not end normally (retry those)."""
    lines = list(info.lines)
    for idx, (_, text) in batch.items():
        lines[idx] = text
    fd, path = tempfile.mkstemp(suffix=".ptx", prefix="ptxdiff_")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines))
    try:
        _, perrs, clean, _ = run_ptxas(path, arch_of(info.target))
        oerrs = run_ours(ptxsim, path)
    finally:
        os.unlink(path)
    results, retry = [], []
    for idx, (kind, text) in batch.items():
        ln = idx + 1
        if ln not in perrs and not clean:
            retry.append(idx)
            continue
        results.append((idx, kind, text, perrs.get(ln), oerrs.get(ln)))
    return results, retry


def run_set(ptxsim, info, batch, results):
    res, retry = check_batch(ptxsim, info, batch)
    results.extend(res)
    if not retry:
        return
    if len(retry) == len(batch):
        if len(batch) == 1:
            return  # ptxas crashed or failed without a line number on this mutant alone: skip
        items = sorted(batch.items())
        half = len(items) // 2
        run_set(ptxsim, info, dict(items[:half]), results)
        run_set(ptxsim, info, dict(items[half:]), results)
        return
    run_set(ptxsim, info, {idx: batch[idx] for idx in retry}, results)


def process_file(ptxsim, path, rng, max_per_line):
    info = FileInfo(path)
    base_ok, base_perrs, _, base_other = run_ptxas(path, arch_of(info.target))
    base_oerrs = run_ours(ptxsim, path)
    base = (base_ok, base_perrs, base_oerrs, base_other)
    if not base_ok:
        return info, base, []
    per_line = {}
    for idx in range(len(info.lines)):
        if idx + 1 in base_oerrs:
            continue  # already disagrees: reported through the base check
        ms = mutants(info, idx, rng, max_per_line)
        if ms:
            per_line[idx] = ms
    results = []
    pending = {idx: list(ms) for idx, ms in per_line.items()}
    while pending:
        batch = {}
        for idx in list(pending):
            batch[idx] = pending[idx].pop()
            if not pending[idx]:
                del pending[idx]
        run_set(ptxsim, info, batch, results)
    # A false positive found in a batch is confirmed on its own: some ptxas checks only run when
    # the rest of the file is clean.
    final = []
    for r in results:
        idx, kind, text, perr, oerr = r
        if perr is None and oerr is not None:
            alone = []
            run_set(ptxsim, info, {idx: (kind, text)}, alone)
            if not alone:
                continue
            r = alone[0]
        final.append(r)
    return info, base, final


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "build/bin/ptxsim"))
    ap.add_argument("--max-per-line", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--report", help="write every disagreement here")
    ap.add_argument("--examples", type=int, default=2, help="examples per class on stdout")
    args = ap.parse_args()

    seen = set()
    fps, fns = collections.defaultdict(list), collections.defaultdict(list)
    base_fp, total, dup = [], 0, 0

    def work(path):
        return process_file(args.ptxsim, path, random.Random(f"{args.seed}:{path}"),
                            args.max_per_line)

    with ThreadPoolExecutor(max_workers=args.j) as ex:
        for info, base, results in ex.map(work, args.files):
            base_ok, base_perrs, base_oerrs, base_other = base
            if base_ok and base_oerrs:
                for ln, msg in sorted(base_oerrs.items()):
                    base_fp.append(f"{info.path}:{ln}: {msg}")
            for idx, kind, text, perr, oerr in results:
                key = re.sub(r"\d+", "N", text.strip())
                if key in seen:
                    dup += 1
                    continue
                seen.add(key)
                total += 1
                op = INSTR_RE.match(info.lines[idx]).group(3).split(".")[0]
                where = f"{info.path}:{idx + 1}"
                if perr is None and oerr is not None:
                    fps[(op, kind)].append((where, text.strip(), oerr))
                elif perr is not None and oerr is None:
                    fns[(op, kind)].append((where, text.strip(), perr))

    nfp = sum(len(v) for v in fps.values())
    nfn = sum(len(v) for v in fns.values())
    out = []
    out.append(f"files: {len(args.files)}  unique mutants: {total} (duplicates skipped: {dup})")
    out.append(f"original files ptxas accepts that ptxsim rejects: {len(base_fp)}")
    out += ["  " + b for b in base_fp]
    out.append(f"FALSE POSITIVES (ptxas accepts, ptxsim rejects): {nfp}")
    full = list(out)
    for title, d in (("FP", fps), ("FN", fns)):
        if title == "FN":
            out.append(f"MISSED ERRORS (ptxas rejects, ptxsim accepts): {nfn}")
            full.append(out[-1])
        for (op, kind), items in sorted(d.items(), key=lambda kv: -len(kv[1])):
            out.append(f"  [{title}] {op} {kind}: {len(items)}")
            full.append(out[-1])
            for where, text, msg in items[:args.examples]:
                out.append(f"      {text}    # {msg}  ({where})")
            for where, text, msg in items:
                full.append(f"      {text}    # {msg}  ({where})")
    print("\n".join(out))
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(full) + "\n")
    return 1 if nfp or base_fp else 0


if __name__ == "__main__":
    sys.exit(main())
