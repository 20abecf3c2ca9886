#!/usr/bin/python3
"""The benchmark's shapes in PyTorch, and the ratio of the C model to it.

    /usr/bin/python3 bench/torch_ref.py build/bench.txt

reads the C figures that build/bench printed (its 'csv,' lines), times the
same model in PyTorch with as many threads as OpenBLAS used, and prints
both with their ratios. `make bench` runs both. The model: nn.Embedding, the
sinusoid added, nn.TransformerEncoder (post-norm, ReLU, dropout 0), mean
pooling, a 2-class head and cross-entropy; the step is forward, backward,
gradient clipping and AdamW, as in the C trainer. The forward pass runs
under torch.no_grad() in eval mode, PyTorch's fastest inference path.

Debian's PyTorch runs its own OpenMP threads and calls OpenBLAS, which
starts threads of its own: on 2 cores the two pools fight, and PyTorch ran
3 to 25 times slower in our runs. This script gives PyTorch its best
setting, OPENBLAS_NUM_THREADS=1 with PyTorch's threads as many as the C
model's, unless OPENBLAS_NUM_THREADS is already set.
"""
import math
import os
import re
import sys
import time

if "OPENBLAS_NUM_THREADS" not in os.environ:
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # read when torch loads OpenBLAS

import torch  # noqa: E402 (after the environment is set)
from torch import nn  # noqa: E402

SHAPES = {  # name: V, C, heads, d_ff, layers, T, B (bench/bench.c's)
    "toy": (32, 64, 4, 256, 2, 16, 32),
    "medium": (1000, 256, 8, 1024, 4, 128, 16),
}


class Model(nn.Module):
    def __init__(self, V, C, heads, F, L, T):
        super().__init__()
        self.emb = nn.Embedding(V, C)
        pe = torch.zeros(T, C)
        pos = torch.arange(T, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, C, 2).float() * (-math.log(10000.0) / C))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)
        layer = nn.TransformerEncoderLayer(C, heads, F, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, L, enable_nested_tensor=False)
        self.head = nn.Linear(C, 2)

    def forward(self, ids):
        x = self.emb(ids) + self.pe[: ids.shape[1]]
        return self.head(self.enc(x).mean(1))


def timed(f, seconds):
    f()
    n, t0 = 0, time.perf_counter()
    while True:
        f()
        n += 1
        t = time.perf_counter() - t0
        if t >= seconds:
            return t / n


def main(path, seconds=3.0):
    text = open(path).read()
    threads = int(re.search(r"OpenBLAS threads: (\d+)", text).group(1))
    c = {}
    for line in text.splitlines():
        f = line.split(",")
        if f[0] == "csv" and f[1] in SHAPES:
            c[f[1]] = (float(f[2]), float(f[3]))
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    print(f"PyTorch {torch.__version__}, {threads} threads (as OpenBLAS in build/bench); "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']} inside PyTorch")
    print(f"{'shape':7} {'C fwd tok/s':>12} {'torch fwd':>12} {'ratio':>6} "
          f"{'C train tok/s':>14} {'torch train':>12} {'ratio':>6}")
    for name, (V, C, H, F, L, T, B) in SHAPES.items():
        model = Model(V, C, H, F, L, T)
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

        tf = B * T / timed(forward, seconds)
        ts = B * T / timed(step, seconds)
        cf, cs = c[name]
        print(f"{name:7} {cf:12.0f} {tf:12.0f} {cf / tf:6.2f} {cs:14.0f} {ts:12.0f} {cs / ts:6.2f}")
    print("ratio: C tokens/s over PyTorch's; above 1 the C model is faster.")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
