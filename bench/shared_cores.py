#!/usr/bin/env python3
"""The four timings of a program on a shared machine (bench/README.md,
"Beside other programs"):

  alone      the command as a user runs it, nothing else busy
  1 thread   the same with OMP_NUM_THREADS=1
  beside     the same while a busy loop (`while :; do :; done`) runs
  two        two copies started together (the slower one's time)

    python3 bench/shared_cores.py [--rounds N] [--build DIR] [--vs DIR] [-- CMD ...]

CMD defaults to `train --task agent --steps 300` from --build (default
build/); --vs DIR times the same command from a second build too, each
round taking turns, so that a before/after comparison sees the same
machine. Each figure is the median over the rounds (default 5) of wall
seconds. The user's OMP_NUM_THREADS, OMP_WAIT_POLICY and GOMP_SPINCOUNT
are removed from the environment (except for `1 thread`): the point is
the defaults. The goals of issue 16 are checked on the medians: two
within 2.5x of alone, beside within 1.3x of 1 thread.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

DEFAULT = ["train", "--task", "agent", "--steps", "300"]
USER_VARS = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in USER_VARS}
    env.update(extra)
    return env


def timed(cmds, env):
    """Starts every command at once; the seconds until the last one ends."""
    t0 = time.monotonic()
    procs = [subprocess.Popen(c, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for c in cmds]
    codes = [p.wait() for p in procs]
    if any(codes):
        sys.exit(f"shared_cores: {' '.join(cmds[0])} exited with {codes}")
    return time.monotonic() - t0


def one_round(cmd):
    env = clean_env()
    out = {"alone": timed([cmd], env),
           "1 thread": timed([cmd], clean_env(OMP_NUM_THREADS="1"))}
    busy = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        time.sleep(0.2)
        out["beside"] = timed([cmd], env)
    finally:
        busy.kill()
        busy.wait()
    out["two"] = timed([cmd, cmd], env)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--build", default="build")
    ap.add_argument("--vs", help="a second build directory, timed by turns")
    ap.add_argument("cmd", nargs="*", help="program and arguments (default: %(default)s)")
    a = ap.parse_args()
    prog = a.cmd or DEFAULT
    builds = [a.build] + ([a.vs] if a.vs else [])
    runs = {b: [] for b in builds}
    for r in range(a.rounds):
        for b in builds:
            runs[b].append(one_round([os.path.join(b, prog[0])] + prog[1:]))
            print(f"round {r + 1}/{a.rounds} {b}: " + ", ".join(
                f"{k} {v:.2f} s" for k, v in runs[b][-1].items()), file=sys.stderr)
    print(f"{' '.join(prog)}, median of {a.rounds} rounds (wall seconds)\n")
    print("| build | alone | 1 thread | beside a busy loop | two at once | two / alone "
          "| beside / 1 thread |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    ok = True
    for b in builds:
        med = {k: statistics.median(r[k] for r in runs[b]) for k in runs[b][0]}
        two, beside = med["two"] / med["alone"], med["beside"] / med["1 thread"]
        print(f"| {b} | {med['alone']:.2f} | {med['1 thread']:.2f} | {med['beside']:.2f} "
              f"| {med['two']:.2f} | {two:.2f} | {beside:.2f} |")
        if b == a.build:
            ok = two <= 2.5 and beside <= 1.3
    print(f"\ngoals (two / alone <= 2.5, beside / 1 thread <= 1.3) for {a.build}: "
          f"{'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
