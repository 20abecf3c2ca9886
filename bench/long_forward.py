#!/usr/bin/python3
"""The forward pass on long tapes, C against PyTorch, one thread each.

    /usr/bin/python3 bench/long_forward.py BUILD [T ...]

The benchmark's model (5 layers, width 64, 8 heads, d_ff 256, post-norm,
ReLU, the sinusoid added), made by BUILD/train (one step: the weights are
what is timed, not what they know) and exported by BUILD/encode --npy; the
same weights loaded into PyTorch's nn.TransformerEncoder, and its output on
the exported sentence checked against C's. Then, for each T (default 25,
100 and 400), 1000 tapes of T tokens through each side, 32 at a time: C by
BUILD/long_forward, PyTorch's encoder under torch.no_grad() in eval mode,
each in a process of its own with one thread (OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS and torch.set_num_threads 1), the best of ROUNDS runs
taken in turns (the machine is shared). PyTorch runs twice: as shipped,
and with glibc's allocator told to keep what it frees (MALLOC_MMAP_MAX_=0,
MALLOC_TRIM_THRESHOLD_ past any size): as shipped, the T x T tensors of
long tapes are mapped and unmapped at every operation, and their pages
touched anew each time. Prints CPU seconds per 1000 tapes and C's lead.
`make longbench` runs it.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROUNDS = 3
COUNT = 1000
BATCH = 32
MODEL = ["--d-model", "64", "--heads", "8", "--layers", "5", "--d-ff", "256",
         "--pe", "sinusoidal"]
TUNED = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(1 << 40)}
ONE = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}

# What a PyTorch process runs: the encoder on COUNT tapes of T, its CPU
# seconds printed.
TORCH = r"""
import json, os, sys, time
import numpy as np
import torch
from torch import nn
torch.set_num_threads(1)
d, T, count, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
cfg = json.load(open(os.path.join(d, "config.json")))
layer = nn.TransformerEncoderLayer(cfg["d_model"], cfg["nhead"], cfg["dim_feedforward"],
                                   dropout=0.0, activation=cfg["activation"],
                                   layer_norm_eps=cfg["layer_norm_eps"], batch_first=True,
                                   norm_first=cfg["norm_first"])
enc = nn.TransformerEncoder(layer, cfg["num_layers"], enable_nested_tensor=False)
enc.load_state_dict({n: torch.from_numpy(np.load(os.path.join(d, "params", n + ".npy")))
                     for n in enc.state_dict()})
enc.eval()
x = torch.randn(batch, T, cfg["d_model"])
with torch.no_grad():
    if T == 0:  # the check: the exported sentence
        y = enc(torch.from_numpy(np.load(os.path.join(d, "input.npy")))).numpy()
        print(float(np.abs(y - np.load(os.path.join(d, "output.npy"))).max()))
        sys.exit(0)
    enc(x)  # untimed
    t0 = time.process_time()
    done = 0
    while done < count:
        b = min(batch, count - done)
        enc(x[:b])
        done += b
    print(time.process_time() - t0)
"""


def run(cmd, env=None):
    e = dict(os.environ, **ONE, **(env or {}))
    out = subprocess.run(cmd, env=e, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"long_forward.py: {' '.join(cmd)} failed:\n{out.stderr}")
    return out.stdout


def main(build, lengths):
    tmp = tempfile.mkdtemp(prefix="long_forward.")
    model = os.path.join(tmp, "m.bin")
    run([f"{build}/train", "--task", "duplicate_string", *MODEL, "--steps", "1",
         "--out", model])
    export = os.path.join(tmp, "export")
    run([f"{build}/encode", "--model", model, "--npy", export, "0 1 1 0 1"])
    diff = float(run([sys.executable, "-c", TORCH, export, "0", "0", "1"]))
    cfg = json.load(open(os.path.join(export, "config.json")))
    print(f"the model: {cfg['num_layers']} layers, width {cfg['d_model']}, {cfg['nhead']} heads, "
          f"d_ff {cfg['dim_feedforward']}, {cfg['pe']}; PyTorch's output on C's weights: "
          f"max |torch - C| {diff:.2e}")
    rows = []
    for T in lengths:
        best = {"C": 1e30, "torch": 1e30, "tuned": 1e30}
        gflops = 0.0
        for _ in range(ROUNDS):
            out = run([f"{build}/long_forward", model, str(T), str(COUNT)])
            s = float(re.search(r": ([0-9.]+) s per 1000 tapes", out).group(1))
            if s < best["C"]:
                best["C"], gflops = s, float(re.search(r"products ([0-9.]+) GFLOP/s", out).group(1))
            for side, env in (("torch", None), ("tuned", TUNED)):
                t = float(run([sys.executable, "-c", TORCH, export, str(T), str(COUNT),
                               str(BATCH)], env))
                best[side] = min(best[side], t * 1000.0 / COUNT)
        rows.append((T, best, gflops))
    print(f"\nCPU seconds per {COUNT} tapes, one thread, the best of {ROUNDS} runs in turns:")
    print(f"{'T':>5} {'C':>8} {'GFLOP/s':>8} {'PyTorch':>8} {'tuned':>8} {'C lead':>7} "
          f"{'over tuned':>10}")
    for T, b, g in rows:
        print(f"{T:>5} {b['C']:8.3f} {g:8.1f} {b['torch']:8.3f} {b['tuned']:8.3f} "
              f"{b['torch'] / b['C']:6.2f}x {b['tuned'] / b['C']:9.2f}x")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    sys.exit(main(sys.argv[1], [int(t) for t in sys.argv[2:]] or [25, 100, 400]))
