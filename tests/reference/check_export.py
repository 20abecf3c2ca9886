#!/usr/bin/python3
"""Loads what `build/encode --npy DIR` wrote into PyTorch and checks that
torch's nn.TransformerEncoder, given the exported weights and the same
input (DIR/input.npy: the embedding with its position code), produces the
exported hidden states. Prints the largest difference; exits 1 above 1e-4.

    /usr/bin/python3 tests/reference/check_export.py DIR

Needs Debian's python3-torch and python3-numpy. The tests do not run it.
"""
import json
import os
import sys

import numpy as np
import torch
from torch import nn


def main(d):
    cfg = json.load(open(os.path.join(d, "config.json")))
    if cfg.get("pe_in_attention"):
        print(f"{d}: {cfg['pe']} acts inside attention, and nn.TransformerEncoder has no place "
              "for it; this check covers the input schemes only", file=sys.stderr)
        return 2
    layer = nn.TransformerEncoderLayer(cfg["d_model"], cfg["nhead"], cfg["dim_feedforward"],
                                       dropout=0.0, activation=cfg["activation"],
                                       layer_norm_eps=cfg["layer_norm_eps"], batch_first=True,
                                       norm_first=cfg["norm_first"])
    final = nn.LayerNorm(cfg["d_model"], eps=cfg["layer_norm_eps"]) if cfg["norm_first"] else None
    enc = nn.TransformerEncoder(layer, cfg["num_layers"], norm=final, enable_nested_tensor=False)
    state = {}
    for name, value in enc.state_dict().items():
        if name.endswith("self_attn.out_proj.bias") and not cfg.get("out_proj_bias", True):
            # exported without it (--no-out-bias): torch's layer has one, at 0 it adds nothing
            state[name] = torch.zeros_like(value)
            continue
        state[name] = torch.from_numpy(np.load(os.path.join(d, "params", name + ".npy")))
    enc.load_state_dict(state)  # strict: every name must be there, with its shape
    enc.eval()
    x = torch.from_numpy(np.load(os.path.join(d, "input.npy")))
    with torch.no_grad():
        y = enc(x).numpy()
    want = np.load(os.path.join(d, "output.npy"))
    diff = float(np.abs(y - want).max())
    # what the head reads: the mean over the words, or [CLS]'s row (the first)
    read = want[:, 0, :] if cfg.get("pool") == "cls" else want.mean(axis=1)
    pooled = float(np.abs(read - np.load(os.path.join(d, "pooled.npy"))).max())
    print(f"{d}: {len(state)} tensors loaded into nn.TransformerEncoder; "
          f"max |torch - C| hidden {diff:.2e}, pooled {pooled:.2e}")
    return 0 if diff <= 1e-4 and pooled <= 1e-5 else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
