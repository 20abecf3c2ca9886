#!/usr/bin/python3
"""Writes fixtures/rope_scaling.txt: RoPE's inverse frequencies under the
linear, static NTK-aware and YaRN scalings, computed in float32 with torch
the way Hugging Face transformers' modeling_rope_utils computes them
(_compute_linear_scaling_rope_parameters, _compute_ntk_parameters,
_compute_yarn_parameters, read at commit 0044e3b3 of huggingface/
transformers), for tests/test_pe.c to hold src/pe/pe_rope.c against.

Run with Debian's python3-torch: /usr/bin/python3 tests/reference/rope_scaling.py
Each line: scaling factor original_len head_size base attention_factor,
then the head_size/2 inverse frequencies."""
import math
import os

import torch


def default_freqs(base, dim):
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))


def hf_inv_freq(scaling, factor, original_len, dim, base):
    if scaling == "none":
        return default_freqs(base, dim), 1.0
    if scaling == "linear":
        return default_freqs(base, dim) / factor, 1.0
    if scaling == "ntk":
        return default_freqs(base * factor ** (dim / (dim - 2)), dim), 1.0
    assert scaling == "yarn"
    attention = 0.1 * math.log(factor) + 1.0
    beta_fast, beta_slow = 32, 1

    def dim_at(rotations):
        # the channel index 2i at which a pair turns `rotations` times over L
        return dim * math.log(original_len / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(dim_at(beta_fast)), 0)
    high = min(math.ceil(dim_at(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    pos = base ** (torch.arange(0, dim, 2).float() / dim)
    keep = 1 - ramp  # the share of the original frequency
    inv = (1.0 / (factor * pos)) * (1 - keep) + (1.0 / pos) * keep
    return inv, attention


CASES = [
    ("none", 1, 0, 8, 10000.0),
    ("linear", 2, 0, 8, 10000.0),
    ("linear", 4, 0, 64, 10000.0),
    ("ntk", 2, 0, 8, 10000.0),
    ("ntk", 4, 0, 128, 10000.0),
    ("ntk", 8, 0, 64, 500000.0),
    ("yarn", 2, 8, 8, 10000.0),
    ("yarn", 4, 8, 32, 10000.0),
    ("yarn", 4, 4096, 128, 10000.0),  # LLaMA 2's head size and length
    ("yarn", 16, 4096, 128, 10000.0),
    ("yarn", 8, 8192, 128, 500000.0),
    ("yarn", 1.5, 64, 16, 10000.0),
    ("yarn", 4, 8, 16, 10000.0),  # encode's default head, the command
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "fixtures", "rope_scaling.txt"), "w") as f:
        for scaling, factor, length, dim, base in CASES:
            inv, att = hf_inv_freq(scaling, factor, length, dim, base)
            vals = " ".join("%.9g" % v for v in inv.tolist())
            f.write("%s %.9g %d %d %.9g %.17g %s\n" % (scaling, factor, length, dim, base, att, vals))


if __name__ == "__main__":
    main()
