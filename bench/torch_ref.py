#!/usr/bin/python3
"""The benchmark's shapes in PyTorch, and the ratio of the C model to it.

    /usr/bin/python3 bench/torch_ref.py build/bench [SECONDS]

runs the C benchmark (build/bench, reading its 'csv,' lines) and times the
same model in PyTorch under four thread settings, taking turns in ROUNDS
rounds of SECONDS / ROUNDS per measure (default SECONDS 3), and compares
the C model with the best of the four, shape by shape and measure by
measure, each side's figure its best round's: the machine is shared, and
the load of other programs comes and goes for tens of seconds at a time,
so the two sides must see the same stretch of time. Then it measures
PyTorch's peak resident memory at the medium shape and checks the goals
of bench/README.md. `make bench` runs it. The model: nn.Embedding,
the sinusoid added, nn.TransformerEncoder (post-norm, ReLU, dropout 0), mean
pooling, a 2-class head and cross-entropy; the step is forward, backward,
gradient clipping and AdamW, as in the C trainer. The forward pass runs
under torch.no_grad() in eval mode, PyTorch's fastest inference path.

Debian's PyTorch runs its own OpenMP threads (torch.set_num_threads) and
calls OpenBLAS, which may start threads of its own (OPENBLAS_NUM_THREADS,
read when OpenBLAS loads): on 2 cores the two pools can fight, and which
combination is fastest differs by shape and measure. So each of the four,
torch threads 1 or 2 x OPENBLAS_NUM_THREADS 1 or 2, runs in a process of
its own (the variable must be set before torch loads), and the C model is
compared with the fastest for each figure.
"""
import json
import math
import os
import re
import resource
import subprocess
import sys
import time

SHAPES = {  # name: V, C, heads, d_ff, layers, T, B (bench/bench.c's)
    "toy": (32, 64, 4, 256, 2, 16, 32),
    "medium": (1000, 256, 8, 1024, 4, 128, 16),
}
SETTINGS = [(t, b) for t in (1, 2) for b in (1, 2)]  # (torch threads, OpenBLAS threads)

# The goals of issue 10 (bench/README.md): C over PyTorch's best, and the
# C step's GFLOP/s over sgemm's, with 2 threads.
GOALS = {("toy", "train"): 3.0, ("medium", "train"): 1.5,
         ("toy", "fwd"): 2.0, ("medium", "fwd"): 1.5}
GOAL_SGEMM = 0.85
GOAL_RSS = 0.25


def peak_rss_mb():
    # ru_maxrss is in KiB on Linux, as build/bench reads it
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def build(shape):
    import torch
    from torch import nn

    V, C, H, F, L, T, B = SHAPES[shape]

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, C)
            pe = torch.zeros(T, C)
            pos = torch.arange(T, dtype=torch.float).unsqueeze(1)
            div = torch.exp(torch.arange(0, C, 2).float() * (-math.log(10000.0) / C))
            pe[:, 0::2] = torch.sin(pos * div)
            pe[:, 1::2] = torch.cos(pos * div)
            self.register_buffer("pe", pe)
            layer = nn.TransformerEncoderLayer(C, H, F, dropout=0.0, batch_first=True)
            self.enc = nn.TransformerEncoder(layer, L, enable_nested_tensor=False)
            self.head = nn.Linear(C, 2)

        def forward(self, ids):
            x = self.emb(ids) + self.pe[: ids.shape[1]]
            return self.head(self.enc(x).mean(1))

    model = Model()
    ids = torch.randint(2, V, (B, T))
    labels = torch.randint(0, 2, (B,))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9,
                            weight_decay=0.01)

    def forward():
        model.eval()
        with torch.no_grad():
            model(ids)

    def step():
        # fresh random labels each step, as build/bench draws them: a
        # batch learned to a loss of 0 leaves denormal gradients
        labels.random_(0, 2)
        model.train()
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(ids), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    return forward, step, B * T


ROUNDS = 10  # as build/bench: the measures take turns, best round kept


def timed(fs, seconds):
    """Seconds per call of each of fs: one warm-up call each, then ROUNDS
    rounds of seconds / ROUNDS per function, taking turns; each figure is
    its best round's (the machine is shared, as bench/bench.c says)."""
    for f in fs:
        f()
    best = [math.inf] * len(fs)
    for _ in range(ROUNDS):
        for i, f in enumerate(fs):
            n, t0 = 0, time.perf_counter()
            while True:
                f()
                n += 1
                t = time.perf_counter() - t0
                if t >= seconds / ROUNDS:
                    break
            best[i] = min(best[i], t / n)
    return best


def worker(threads, seconds, shapes):
    """Runs in a child process: times the shapes, prints one JSON line."""
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    out = {"version": torch.__version__, "import_rss_mb": peak_rss_mb()}
    for name in shapes:
        forward, step, tokens = build(name)
        if seconds > 0:
            t_fwd, t_step = timed([forward, step], seconds)
            out[name] = {"fwd": tokens / t_fwd, "train": tokens / t_step}
        else:  # memory only: the same calls, a few of each
            for _ in range(3):
                forward()
                step()
    out["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(out))


def child(threads, blas, seconds, shapes):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(blas), OMP_NUM_THREADS=str(threads))
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", str(threads), str(seconds),
           ",".join(shapes)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_c(bench, seconds):
    """One run of build/bench: (threads, {shape: figures}), its table
    printed as it comes."""
    text = subprocess.run([bench, str(seconds)], capture_output=True, text=True,
                          check=True).stdout
    threads = int(re.search(r"threads: (\d+)", text).group(1))
    c = {}
    for line in text.splitlines():
        f = line.split(",")
        if f[0] == "csv" and f[1] in SHAPES:
            c[f[1]] = {"fwd": float(f[2]), "train": float(f[3]), "step_gf": float(f[5]),
                       "sgemm_gf": float(f[6]), "rss": float(f[7])}
        elif f[0] != "csv" and line.strip() and not line.startswith(("ratio:", "model MB",
                                                                   "activations")):
            print(line)
    return threads, c


RUNS = 3  # runs of each side, taking turns


def main(bench, seconds):
    c, runs = {}, {s: [] for s in SETTINGS}
    for r in range(RUNS):
        print(f"C, run {r + 1} of {RUNS}:", flush=True)
        threads, cr = run_c(bench, seconds / RUNS)
        for name, fig in cr.items():
            best = c.setdefault(name, dict(fig))
            for k in fig:  # every figure is better higher, but memory: the largest
                best[k] = max(best[k], fig[k])
        for t, b in SETTINGS:
            runs[(t, b)].append(child(t, b, seconds / RUNS, list(SHAPES)))
    # each setting's best run, figure by figure
    runs = {s: {"version": rs[0]["version"],
                **{n: {w: max(r[n][w] for r in rs) for w in ("fwd", "train")} for n in SHAPES}}
            for s, rs in runs.items()}
    print(f"\nC, the best of {RUNS} runs of {bench} {seconds / RUNS:g} "
          f"(each figure its best round's):")
    print(f"{'shape':7} {'fwd tok/s':>10} {'train tok/s':>12} {'step GF/s':>10} "
          f"{'sgemm GF/s':>11} {'ratio':>6} {'peak RSS MB':>12}")
    for name in SHAPES:
        f = c[name]
        print(f"{name:7} {f['fwd']:10.0f} {f['train']:12.0f} {f['step_gf']:10.1f} "
              f"{f['sgemm_gf']:11.1f} {f['step_gf'] / f['sgemm_gf']:6.2f} {f['rss']:12.1f}")
    print()
    version = next(iter(runs.values()))["version"]
    print(f"PyTorch {version}: four settings, each in its own process, the best of {RUNS} "
          f"runs of each "
          f"(torch threads x OPENBLAS_NUM_THREADS); the C model ran with {threads} threads")
    print(f"{'shape':7} {'measure':7} " + " ".join(f"{f't{t}/ob{b}':>9}" for t, b in SETTINGS)
          + f" {'best':>9} {'C':>9} {'C/best':>7} {'goal':>5}")
    met = []
    for name in SHAPES:
        for what in ("fwd", "train"):
            vals = {s: runs[s][name][what] for s in SETTINGS}
            best = max(vals, key=vals.get)
            ratio = c[name][what] / vals[best]
            goal = GOALS[(name, what)]
            met.append((f"{name} {what} >= {goal}x PyTorch's best", ratio >= goal,
                        f"{ratio:.2f}x (best t{best[0]}/ob{best[1]})"))
            print(f"{name:7} {what:7} " + " ".join(f"{vals[s]:9.0f}" for s in SETTINGS)
                  + f" {f't{best[0]}/ob{best[1]}':>9} {c[name][what]:9.0f} {ratio:7.2f}"
                  f" {goal:5.1f}")
    print("tok/s; t = torch.set_num_threads, ob = OPENBLAS_NUM_THREADS.")
    for name in SHAPES:
        r = c[name]["step_gf"] / c[name]["sgemm_gf"]
        met.append((f"{name} step GF/s >= {GOAL_SGEMM} of sgemm's (2 threads)",
                    r >= GOAL_SGEMM and threads == 2, f"{r:.2f} with {threads} threads"))
    # Memory: the medium shape alone in a process of its own, forward and
    # training steps, with the setting that trained it fastest.
    best = max(SETTINGS, key=lambda s: runs[s]["medium"]["train"])
    mem = child(best[0], best[1], 0, ["medium"])
    rss_c = c["medium"]["rss"]
    ratio = rss_c / mem["peak_rss_mb"]
    print(f"\npeak RSS at the medium shape: C {rss_c:.1f} MB, PyTorch {mem['peak_rss_mb']:.1f} MB "
          f"(of which {mem['import_rss_mb']:.1f} MB after importing torch), C/PyTorch {ratio:.2f}")
    met.append((f"medium peak RSS <= {GOAL_RSS} of PyTorch's", ratio <= GOAL_RSS, f"{ratio:.2f}"))
    print("\ngoals (bench/README.md):")
    for what, ok, fig in met:
        print(f"  {'met    ' if ok else 'NOT met'}  {what}: {fig}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), float(sys.argv[3]), sys.argv[4].split(","))
    elif len(sys.argv) in (2, 3):
        main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) == 3 else 3.0)
    else:
        sys.exit(__doc__)
