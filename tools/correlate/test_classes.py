#!/usr/bin/env python3
"""ctest correlate_classes: the kernel classes of correlate.py (tools/correlate/classes.txt).

Every launch of the hardware data has a class; the per-class MAPE and worst kernel come from the
rows of that class only; the first matching rule wins; a malformed rule names its file and line.
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import correlate  # noqa: E402

DATA = os.path.join(correlate.ROOT, "tools", "correlate", "data", "h100_ncu_cycles.csv")


def row(program, launch, kernel, err):
    return {"program": program, "launch": launch, "kernel": kernel, "hw": 1000.0,
            "sim": 1000.0 * (1 + err / 100), "err_pct": err}


def rules_from(text):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(text)
    try:
        return correlate.read_classes(f.name)
    finally:
        os.unlink(f.name)


class Classes(unittest.TestCase):
    def test_every_launch_of_the_data_has_a_class(self):
        rules = correlate.read_classes(correlate.CLASSES)
        data = correlate.read_compact(DATA)
        missing = ["%s %d %s" % (p, i, k) for p, launches in data.items() for i, k, _ in launches
                   if correlate.class_of(rules, p, k) is None]
        self.assertEqual(missing, [])

    def test_the_issue_kernels_land_in_their_classes(self):
        rules = correlate.read_classes(correlate.CLASSES)
        want = [("kern__smem_tiled", "hist64(const unsigned int *", "smem_tiled"),
                ("kern__smem_tiled", "void reduce<256>(const float *", "smem_tiled"),
                ("kern__smem_tiled", "void lds_tput<32>(int", "smem_micro"),
                ("kern__smem_tiled", "bar_loop(int", "smem_micro"),
                ("kern__atomics_contended", "add_to(unsigned int *", "atomics"),
                ("train__08_atomics_int", "atomics(Acc *", "atomics"),
                ("train__24_constant_mem", "use_const(const int *", "const_param"),
                ("train__04_warp_shuffle", "shuffles(const int *", "warp_intrinsics"),
                ("train__33_matmul_tiled", "matmul_tiled(const float *", "smem_tiled"),
                ("train__33_matmul_tiled", "matmul_naive(const float *", "streaming"),
                ("train__49_video_mbarrier", "mbarrier_kernel(unsigned int *)", "sync_runtime")]
        for prog, kernel, cls in want:
            self.assertEqual(correlate.class_of(rules, prog, kernel), cls, (prog, kernel))

    def test_first_matching_rule_wins(self):
        rules = rules_from("a ^p$ ^k1\nb ^p$\n# comment\nc ^q # trailing comment\n")
        self.assertEqual(correlate.class_of(rules, "p", "k1(int"), "a")
        self.assertEqual(correlate.class_of(rules, "p", "k2(int"), "b")
        self.assertEqual(correlate.class_of(rules, "q2", "k"), "c")
        self.assertIsNone(correlate.class_of(rules, "r", "k"))

    def test_figures_per_class(self):
        rules = rules_from("tiled ^t\natom ^a\n")
        rows = [row("t1", 0, "k", 10.0), row("t1", 1, "k", -30.0), row("a1", 0, "k", 50.0),
                row("a1", 1, "k", -20.0), row("a2", 0, "k", 5.0), row("x", 0, "k", 1.0)]
        figs = correlate.class_figures(rows, rules)
        self.assertEqual([c["class"] for c in figs], ["tiled", "atom", "unclassified"])
        tiled, atom, other = figs
        self.assertEqual(tiled["n"], 2)
        self.assertAlmostEqual(tiled["mape"], 20.0)
        self.assertEqual((tiled["worst"]["launch"], tiled["worst"]["err_pct"]), (1, -30.0))
        self.assertEqual(atom["n"], 3)
        self.assertAlmostEqual(atom["mape"], 25.0)
        self.assertEqual((atom["worst"]["program"], atom["worst"]["err_pct"]), ("a1", 50.0))
        self.assertEqual(other["n"], 1)
        # 25 % exactly is not above the limit; the single kernels above it are listed
        over, big = correlate.print_classes(figs, rows, limit=25.0)
        self.assertEqual(over, [])
        self.assertEqual([(r["program"], r["launch"]) for r in big], [("a1", 0), ("t1", 1)])
        over, _ = correlate.print_classes(figs, rows, limit=19.0)
        self.assertEqual(over, ["tiled", "atom"])

    def test_bad_rules_name_file_and_line(self):
        with self.assertRaisesRegex(ValueError, r":2: expected CLASS PROGRAM_REGEX"):
            rules_from("a ^p\nb c d e\n")
        with self.assertRaisesRegex(ValueError, r":1: bad regex"):
            rules_from("a ^(p\n")
        with self.assertRaisesRegex(ValueError, r"no class rules"):
            rules_from("# nothing\n")


if __name__ == "__main__":
    unittest.main()
