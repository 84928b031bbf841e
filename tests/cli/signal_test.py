#!/usr/bin/env python3
"""`ptxsim run` stopped by a signal: the simulated program must end with it and leave no
temporary file behind.

usage: signal_test.py PTXSIM PROGRAM SIGNAL [ptxsim run options...]

Starts `ptxsim run [options] -- PROGRAM` (PROGRAM prints "launching" and then runs a kernel that
never ends), waits until the kernel runs, sends SIGNAL to the launcher and checks: the launcher
ends with 128 + the signal's number (or by the signal itself when it ran the program in its own
process), the program's process is gone, and the temporary directory (TMPDIR) holds no
statistics file. Every wait is bounded; whatever is still running at the end is killed.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time


def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after its ')'
        fields = stat[stat.rfind(")") + 2:].split()
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:].split()[0] != "Z"


def main():
    ptxsim, program, signame = sys.argv[1:4]
    options = sys.argv[4:]
    sig = getattr(signal, signame)
    work = tempfile.mkdtemp(prefix="ptxsim-signal-")
    env = dict(os.environ, TMPDIR=work)
    out_path = os.path.join(work, "program.out")

    def default_signals():
        # a test runner may start us with SIGINT ignored (as a shell does for `cmd &`); the
        # launcher keeps an ignored signal ignored, so give it the usual dispositions
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            signal.signal(s, signal.SIG_DFL)

    with open(out_path, "w") as out:
        launcher = subprocess.Popen([ptxsim, "run", "--no-summary", *options, "--", program],
                                    stdout=out, stderr=subprocess.PIPE, env=env,
                                    preexec_fn=default_signals)
    program_pids = []
    failure = None
    try:
        deadline = time.monotonic() + 120
        while True:
            with open(out_path) as f:
                if "launching" in f.read():
                    break
            if launcher.poll() is not None:
                failure = f"the program ended before its kernel ran (status {launcher.returncode})"
                return 1
            if time.monotonic() > deadline:
                failure = "the program did not reach its kernel within 120 s"
                return 1
            time.sleep(0.05)
        program_pids = children(launcher.pid) or [launcher.pid]  # --report: a child; else exec
        time.sleep(0.5)  # (inside the kernel's launch by now)
        launcher.send_signal(sig)
        try:
            status = launcher.wait(timeout=60)
        except subprocess.TimeoutExpired:
            failure = f"ptxsim run did not end within 60 s of {signame}"
            return 1
        stderr = launcher.stderr.read().decode(errors="replace")
        if status not in (128 + sig, -sig):
            failure = f"ptxsim run ended with status {status}, not {128 + sig}\n{stderr}"
            return 1
        deadline = time.monotonic() + 30
        while any(alive(p) for p in program_pids if p != launcher.pid):
            if time.monotonic() > deadline:
                failure = f"the simulated program (pid {program_pids}) still runs after {signame}"
                return 1
            time.sleep(0.05)
        left = [n for n in os.listdir(work) if n != "program.out"]
        if left:
            failure = f"files left in TMPDIR: {left}"
            return 1
        print(f"ptxsim run {' '.join(options)}: {signame} -> status {status}; program gone, "
              f"no temporary file left\n{stderr}", end="")
        return 0
    finally:
        if failure:
            print("FAIL: " + failure)
        for p in program_pids + [launcher.pid]:
            if alive(p):
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
        launcher.wait()
        for n in os.listdir(work):
            os.unlink(os.path.join(work, n))
        os.rmdir(work)


if __name__ == "__main__":
    sys.exit(main())
