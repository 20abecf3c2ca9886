#!/usr/bin/python3
"""Writes the PyTorch reference fixtures that tests/test_parity.c compares
the C model against.

Run with Debian's python3-torch (the tests never need it; the fixtures are
committed):

    /usr/bin/python3 tests/reference/make_fixtures.py

Each case is a directory under tests/reference/fixtures/ holding
config.txt (the shape, one key=value per line), the token ids, lengths and
labels, every parameter under its state_dict name (params/NAME.npy), the
outputs (hidden.npy, pooled.npy, logits.npy, loss.npy) and every parameter
gradient (grads/NAME.npy), all float32.

The model is torch's own nn.TransformerEncoder between an embedding with
a position code and a classification head on the mean of the real tokens,
with dropout 0 and in training mode (so torch does not take its inference
fast path, which treats padding differently).
"""
import math
import os
import shutil

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")


def sinusoid(T, d):
    # written the way the PyTorch tutorial does, independently of the C code
    pe = torch.zeros(T, d)
    position = torch.arange(0, T, dtype=torch.float64).unsqueeze(1)
    div = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-math.log(10000.0) / d))
    pe[:, 0::2] = torch.sin(position * div).float()
    pe[:, 1::2] = torch.cos(position * div[: d // 2]).float()
    return pe


class Model(nn.Module):
    def __init__(self, V, C, heads, layers, F, K, norm_first, act, pe, max_len):
        super().__init__()
        self.embedding = nn.Embedding(V, C)
        self.pe = pe
        if pe == "learned":
            self.pos_embedding = nn.Embedding(max_len, C)
        layer = nn.TransformerEncoderLayer(C, heads, F, dropout=0.0, activation=act,
                                           batch_first=True, norm_first=norm_first)
        final = nn.LayerNorm(C) if norm_first else None
        self.encoder = nn.TransformerEncoder(layer, layers, norm=final,
                                             enable_nested_tensor=False)
        self.head = nn.Linear(C, K)

    def forward(self, ids, lens):
        B, T = ids.shape
        x = self.embedding(ids)
        real = torch.arange(T).unsqueeze(0) < lens.unsqueeze(1)  # (B,T)
        if self.pe == "learned":
            code = self.pos_embedding(torch.arange(T)).unsqueeze(0)
        else:
            code = sinusoid(T, x.shape[2]).unsqueeze(0)
        x = x + code * real.unsqueeze(2)  # padded positions get no code
        hidden = self.encoder(x, src_key_padding_mask=~real)
        pooled = (hidden * real.unsqueeze(2)).sum(1) / lens.unsqueeze(1)
        return hidden, pooled, self.head(pooled)


def state_names(model):
    # the C model's names: torch's, without the wrapper's "encoder." prefix
    return {name.replace("encoder.", "", 1): p for name, p in model.named_parameters()}


def save(path, t):
    np.save(path, t.detach().numpy().astype(np.float32))


def make_case(name, norm_first, act, pe, seed):
    torch.manual_seed(seed)
    V, C, heads, layers, F, K, B, T = 11, 16, 4, 2, 32, 3, 3, 7
    lens = torch.tensor([7, 4, 6])
    model = Model(V, C, heads, layers, F, K, norm_first, act, pe, max_len=T)
    model.train()  # dropout is 0; training mode keeps torch off its fast path
    # biases and LayerNorm parameters away from their initial 0 and 1, so
    # the fixture exercises every term
    with torch.no_grad():
        for n, p in model.named_parameters():
            if p.dim() == 1:
                p.add_(0.1 * torch.randn_like(p))
    ids = torch.randint(2, V, (B, T))
    for b in range(B):
        ids[b, lens[b]:] = 0  # <pad>
    labels = torch.randint(0, K, (B,))
    hidden, pooled, logits = model(ids, lens)
    loss = nn.functional.cross_entropy(logits, labels)
    loss.backward()

    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "params"))
    os.makedirs(os.path.join(d, "grads"))
    with open(os.path.join(d, "config.txt"), "w") as f:
        f.write(f"vocab {V}\nd_model {C}\nheads {heads}\nlayers {layers}\nd_ff {F}\n")
        f.write(f"classes {K}\nbatch {B}\nlength {T}\n")
        f.write(f"norm {'pre' if norm_first else 'post'}\nact {act}\npe {pe}\n")
    save(os.path.join(d, "ids.npy"), ids.float())
    save(os.path.join(d, "lens.npy"), lens.float())
    save(os.path.join(d, "labels.npy"), labels.float())
    for n, p in state_names(model).items():
        save(os.path.join(d, "params", n + ".npy"), p)
        save(os.path.join(d, "grads", n + ".npy"), p.grad)
    save(os.path.join(d, "hidden.npy"), hidden)
    save(os.path.join(d, "pooled.npy"), pooled)
    save(os.path.join(d, "logits.npy"), logits)
    save(os.path.join(d, "loss.npy"), loss)
    print(f"{name}: loss {loss.item():.6f}, {len(state_names(model))} parameter tensors")


if __name__ == "__main__":
    torch.set_num_threads(1)
    make_case("post_relu_sinusoidal", False, "relu", "sinusoidal", 1)
    make_case("pre_gelu_learned", True, "gelu", "learned", 2)
