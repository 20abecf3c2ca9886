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

For the input schemes (sinusoidal, learned) the model is torch's own
nn.TransformerEncoder between an embedding with a position code and a
classification head on the mean of the real tokens, with dropout 0 and in
training mode (so torch does not take its inference fast path, which
treats padding differently). nn.TransformerEncoder has no place for RoPE,
ALiBi, Transformer-XL's relative attention, KERPLE, FIRE or x-transformers'
dynamic position bias (dpb), so for those the same layers are written out
here with an explicit attention (ExplicitLayer), under the same parameter
names. Transformer-XL's, KERPLE's, FIRE's and dpb's parameters are written
from their code as separate tensors, and saved packed into the one table
per scheme (per layer, for Transformer-XL and FIRE) that the C model keeps,
in the layout its file states (see tensors()).

post_relu_alibi_no_out_bias has no bias on the attention output
projection (the C model's --no-out-bias, as Ruoss et al.'s code has it):
its config.txt says `out_bias 0`, and its params/ have no out_proj.bias.

    /usr/bin/python3 tests/reference/make_fixtures.py [CASE ...]

makes the cases named (all of them without a name).
"""
import math
import os
import shutil
import sys

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
    def __init__(self, V, C, heads, layers, F, K, norm_first, act, pe, max_len, causal=False):
        super().__init__()
        self.embedding = nn.Embedding(V, C)
        self.pe = pe
        self.causal = causal
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
        elif self.pe == "none":  # no position: only the causal mask can carry order
            code = torch.zeros(1, T, x.shape[2])
        else:
            code = sinusoid(T, x.shape[2]).unsqueeze(0)
        x = x + code * real.unsqueeze(2)  # padded positions get no code
        # --causal: torch's own square subsequent mask (-inf above the
        # diagonal), as a boolean mask like the padding one
        mask = None
        if self.causal:
            mask = torch.isinf(nn.Transformer.generate_square_subsequent_mask(T))
        hidden = self.encoder(x, mask=mask, src_key_padding_mask=~real)
        pooled = (hidden * real.unsqueeze(2)).sum(1) / lens.unsqueeze(1)
        return hidden, pooled, self.head(pooled)


def alibi_slopes(n):
    # Press et al.'s rule, as in their code: a geometric sequence for a
    # power of two, else the power of two below and every other slope of
    # twice that
    def power_of_2(n):
        start = 2.0 ** (-(2.0 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    p = 2 ** math.floor(math.log2(n))
    return power_of_2(p) + alibi_slopes(2 * p)[0::2][: n - p]


def rope(x, split):
    # x (B,H,T,HS): pairs (2i, 2i+1), or (i, i+HS/2) with split, turned by
    # t / 10000^(2i/HS); the angles in float64, then float32
    T, HS = x.shape[2], x.shape[3]
    t = torch.arange(T, dtype=torch.float64).unsqueeze(1)
    theta = 10000.0 ** (-torch.arange(0, HS, 2, dtype=torch.float64) / HS)
    cos, sin = torch.cos(t * theta).float(), torch.sin(t * theta).float()
    if split:
        a, b = x[..., : HS // 2], x[..., HS // 2:]
        return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)


def xpos(x, which):
    # x (B,H,T,HS): rope's turn (interleaved pairs), each pair's cos and sin
    # multiplied by zeta_i^(n/512) for the query and zeta_i^(-n/512) for the
    # key, zeta_i = (2i + 0.4 HS) / (1.4 HS), as torchscale's XPOS (Sun et
    # al. 2022; scale_base 512): n counts from the centre, min_pos =
    # -(length + offset) // 2 with offset 0 (-4 for T = 7), to min_pos + T -
    # 1, while the angles count from 0 (its fixed_pos_embedding)
    T, HS = x.shape[2], x.shape[3]
    min_pos = -T // 2
    n = torch.arange(min_pos, min_pos + T, dtype=torch.float64).unsqueeze(1)
    t = torch.arange(T, dtype=torch.float64).unsqueeze(1)
    theta = 10000.0 ** (-torch.arange(0, HS, 2, dtype=torch.float64) / HS)
    zeta = (torch.arange(0, HS, 2, dtype=torch.float64) + 0.4 * HS) / (1.4 * HS)
    scale = zeta ** ((1 if which == "q" else -1) * n / 512.0)
    cos, sin = (scale * torch.cos(t * theta)).float(), (scale * torch.sin(t * theta)).float()
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)


def xl_sinusoid(T, d):
    # Ruoss et al.'s sinusoid_position_encoding(T, d, add_negative_side=True)
    # (randomized_positional_encodings, models/positional_encodings.py):
    # rows for the positions -T..T-1, all sines then all cosines
    pos = torch.arange(-T, T, dtype=torch.float64).unsqueeze(1)
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    return torch.cat([torch.sin(pos * inv_freq), torch.cos(pos * inv_freq)], dim=1).float()


def rel_shift(x):
    # their _rel_shift_inner, the reshape trick of Transformer-XL's appendix
    # B: x (..., T, 2T), column r for the position r - T, becomes (..., T, T)
    # with entry (i, j) from column j - i + T
    T = x.shape[-2]
    x = x.reshape(*x.shape[:-2], 2 * T, T)[..., 1:, :]
    return x.reshape(*x.shape[:-2], T, 2 * T - 1)[..., :T]


class XlRelative(nn.Module):
    # Transformer-XL's relative attention (Dai et al. 2019, section 3.3) as
    # Ruoss et al.'s compute_attention_with_relative_encodings has it: W_R a
    # Linear without bias, u and v (heads, HS), one of each per layer. They
    # draw u and v from N(0, 0.02^2); larger here so that the fixture weighs
    # their terms.
    def __init__(self, C, heads):
        super().__init__()
        self.relative = nn.Linear(C, C, bias=False)
        self.content_bias = nn.Parameter(0.5 * torch.randn(heads, C // heads))
        self.relative_bias = nn.Parameter(0.5 * torch.randn(heads, C // heads))

    def forward(self, q, k):
        # the scores before 1/sqrt(HS): (q + u).k + (q + v).W_R R, shifted so
        # that (i, j) reads R(j - i)
        B, H, T, HS = q.shape
        rk = self.relative(xl_sinusoid(T, H * HS)).view(2 * T, H, HS).transpose(0, 1)
        u, v = (b.view(1, H, 1, HS) for b in (self.content_bias, self.relative_bias))
        return (q + u) @ k.transpose(2, 3) + rel_shift((q + v) @ rk.transpose(1, 2))

    def table(self, grad=False):
        # (C+2, C): W_R's rows (out, in), then u, then v
        t = (self.relative.weight, self.content_bias, self.relative_bias)
        C = self.relative.weight.shape[1]
        return torch.cat([(x.grad if grad else x).reshape(-1, C) for x in t])


KERPLE_EPS = 1e-2


class KerpleLog(nn.Module):
    # KERPLE's logarithmic kernel (Chi et al. 2022), as its code's
    # ParallelKerpleLog: -p_h log(1 + a_h |i - j|) for head h, p ~ U(0,2) and
    # a ~ U(0,1), clamped at 0.01 before every use. The code is causal
    # (i - j >= 0); an encoder reads the distance |i - j|.
    def __init__(self, heads):
        super().__init__()
        self.bias_p = nn.Parameter(torch.rand(heads) * 2)
        self.bias_a = nn.Parameter(torch.rand(heads))

    def forward(self, T):
        with torch.no_grad():
            self.bias_p.clamp_(min=KERPLE_EPS)
            self.bias_a.clamp_(min=KERPLE_EPS)
        pos = torch.arange(T, dtype=torch.float32)
        dist = (pos.unsqueeze(1) - pos.unsqueeze(0)).abs()
        return -self.bias_p.view(-1, 1, 1) * torch.log(1 + self.bias_a.view(-1, 1, 1) * dist)

    def table(self, grad=False):
        # (2,H): the p row, then the a row
        t = (self.bias_p, self.bias_a)
        return torch.stack([x.grad if grad else x for x in t])


class KerplePower(nn.Module):
    # KERPLE's power kernel, as its code's ParallelKerplePower with learned
    # a and p: -a_h |i - j|^p_h, a ~ U(0,1) and p ~ U(0,2), a clamped at
    # 0.01 and p to [0.01, 2] before every use. Encoder: the distance.
    def __init__(self, heads):
        super().__init__()
        self.bias_a = nn.Parameter(torch.rand(heads))
        self.bias_p = nn.Parameter(torch.rand(heads) * 2)

    def forward(self, T):
        with torch.no_grad():
            self.bias_a.clamp_(min=KERPLE_EPS)
            self.bias_p.clamp_(min=KERPLE_EPS, max=2)
        pos = torch.arange(T, dtype=torch.float32)
        dist = (pos.unsqueeze(1) - pos.unsqueeze(0)).abs()
        return -self.bias_a.view(-1, 1, 1) * dist.pow(self.bias_p.view(-1, 1, 1))

    def table(self, grad=False):
        # (2,H): r1 = a, then r2 = p, as the C table of either form
        t = (self.bias_a, self.bias_p)
        return torch.stack([x.grad if grad else x for x in t])


# CoPE's counts, clamped past 3: a batch of 7 reaches the clamp
COPE_MAX_POS = 4


class CoPE(nn.Module):
    # CoPE (Golovneva et al. 2024), as the paper's appendix code and
    # x-transformers' CoPE: gates sigmoid of the logits after the mask (a
    # masked key's gate is 0), a key's position the sum of the gates from
    # it to the query (their flip, cumsum, flip), clamped at max_pos - 1,
    # and q . e interpolated between the vectors of its floor and its ceil.
    # For an encoder the keys after the query sum from the query to the key
    # and read a second table (pe_cope.c says why).
    def __init__(self, head_dim, max_pos):
        super().__init__()
        self.max_pos = max_pos
        self.left = nn.Parameter(torch.randn(max_pos, head_dim))
        self.right = nn.Parameter(torch.randn(max_pos, head_dim))

    def forward(self, q, logits):
        # q (B,H,T,HS), logits (B,H,T,T) scaled and masked (-inf)
        T = logits.shape[-1]
        gates = torch.sigmoid(logits)
        i = torch.arange(T).view(T, 1)
        j = torch.arange(T).view(1, T)
        left = (gates * (j <= i)).flip(-1).cumsum(-1).flip(-1)   # sum over k = j..i
        right = (gates * (j >= i)).cumsum(-1)                    # sum over k = i..j
        pos = torch.where(j <= i, left, right).clamp(max=self.max_pos - 1)
        floor, ceil = pos.floor().long(), pos.ceil().long()
        w = pos - floor
        out = torch.zeros_like(logits)
        for table, side in ((self.left, j <= i), (self.right, j > i)):
            z = q @ table.T  # (B,H,T,P)
            term = z.gather(-1, ceil) * w + z.gather(-1, floor) * (1 - w)
            out = out + torch.where(side, term, torch.zeros_like(term))
        return out

    def table(self, grad=False):
        # (2P, HS): the keys at or before the query, then those after it
        g = (lambda x: x.grad) if grad else (lambda x: x)
        return torch.cat([g(self.left), g(self.right)])


class Fire(nn.Module):
    # FIRE (Li et al. 2023), the paper's listing: an MLP 1 -> width -> heads
    # of psi(i - j) / psi(max(L, i)), psi(x) = log(|c x| + 1), with c from
    # 0.1, L = |m 512| with m from 1, and 1e-6 added to the normalizer. The
    # paper's models are causal (i - j >= 0); for the keys to the right of
    # an encoder's query psi keeps the offset's sign.
    def __init__(self, heads, width=32, init_c=0.1, init_L=512.0, eps=1e-6):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(1, width), nn.ReLU(), nn.Linear(width, heads))
        self.c = nn.Parameter(torch.tensor(init_c))
        self.init_L = init_L
        self.L_multiplier = nn.Parameter(torch.tensor(1.0))
        self.eps = eps

    def forward(self, T):
        positions = torch.arange(T, dtype=torch.float32)
        rel = positions.unsqueeze(1) - positions.unsqueeze(0)
        rel = torch.sign(rel) * torch.log(torch.abs(self.c * rel) + 1)
        threshold = torch.abs(self.L_multiplier * self.init_L)
        normalizer = torch.max(positions, threshold).unsqueeze(1)
        normalizer = torch.log(torch.abs(self.c * normalizer) + 1) + self.eps
        return self.mlp((rel / normalizer).unsqueeze(-1)).permute(2, 0, 1)  # (H,T,T)

    def table(self, grad=False):
        # (H+2, W+1): the first layer's weights then c, its biases then m,
        # then each head's weights of the second layer then its bias
        g = (lambda x: x.grad) if grad else (lambda x: x)
        first, second = self.mlp[0], self.mlp[2]
        return torch.cat([
            torch.cat([g(first.weight)[:, 0], g(self.c).view(1)]).unsqueeze(0),
            torch.cat([g(first.bias), g(self.L_multiplier).view(1)]).unsqueeze(0),
            torch.cat([g(second.weight), g(second.bias).unsqueeze(1)], dim=1)])


class DynamicPositionBias(nn.Module):
    # x-transformers' DynamicPositionBias (x_transformers.py), as its
    # AttentionLayers build it with dynamic_pos_bias=True: dim = model dim
    # // 4, depth 2, norm off (posenc leaves the norm out), one module for
    # every layer. Its code, with einx and einops written out: an MLP
    # Linear(1, dim), SiLU, (depth - 1) x (Linear(dim, dim), SiLU),
    # Linear(dim, heads) over the signed offsets -(n-1)..n-1, optionally
    # sign(d) log(|d| + 1), then gathered at i - j.
    def __init__(self, dim, *, heads, depth, log_distance=False):
        super().__init__()
        assert depth >= 1, "depth for dynamic position bias MLP must be greater or equal to 1"
        self.log_distance = log_distance
        self.mlp = nn.ModuleList([])
        self.mlp.append(nn.Sequential(nn.Linear(1, dim), nn.SiLU()))
        for _ in range(depth - 1):
            self.mlp.append(nn.Sequential(nn.Linear(dim, dim), nn.SiLU()))
        self.mlp.append(nn.Linear(dim, heads))

    def forward(self, i, j):
        # get the (n x n) matrix of distances
        seq_arange = torch.arange(j - i, j)
        context_arange = torch.arange(j)
        indices = seq_arange.unsqueeze(1) - context_arange.unsqueeze(0)  # 'i, j -> i j'
        indices += j - 1
        # input to continuous positions MLP
        pos = torch.arange(-j + 1, j).float().unsqueeze(-1)
        if self.log_distance:
            pos = torch.sign(pos) * torch.log(pos.abs() + 1)
        for layer in self.mlp:
            pos = layer(pos)
        # get position biases
        bias = pos[indices]
        return bias.permute(2, 0, 1)  # 'i j h -> h i j'

    def table(self, grad=False):
        # every parameter in its order, one after another (parameters_to_vector)
        return torch.cat([(p.grad if grad else p).reshape(-1) for p in self.parameters()])


class ExplicitAttention(nn.Module):
    def __init__(self, C, heads, pe, split, out_bias=True):
        super().__init__()
        self.heads, self.pe, self.split = heads, pe, split
        self.in_proj_weight = nn.Parameter(torch.empty(3 * C, C))
        self.in_proj_bias = nn.Parameter(torch.zeros(3 * C))
        nn.init.xavier_uniform_(self.in_proj_weight)
        # out_bias False: Ruoss et al.'s output projection, without a bias
        self.out_proj = nn.Linear(C, C, bias=out_bias)
        if pe == "xl":
            self.relative_position = XlRelative(C, heads)
        if pe == "fire":  # one for each layer, as the paper's
            self.fire = Fire(heads)
        if pe == "cope":  # one for each layer, shared by the heads, as the paper's
            self.cope = CoPE(C // heads, COPE_MAX_POS)

    def forward(self, x, real, bias=None):
        B, T, C = x.shape
        H, HS = self.heads, C // self.heads
        q, k, v = (x @ self.in_proj_weight.T + self.in_proj_bias).split(C, dim=2)
        q, k, v = (z.view(B, T, H, HS).transpose(1, 2) for z in (q, k, v))
        if self.pe == "rope":
            q, k = rope(q, self.split), rope(k, self.split)
        if self.pe == "xpos":
            q, k = xpos(q, "q"), xpos(k, "k")
        scores = q @ k.transpose(2, 3) / math.sqrt(HS)
        if self.pe == "xl":
            scores = self.relative_position(q, k) / math.sqrt(HS)
        if self.pe == "alibi":
            pos = torch.arange(T, dtype=torch.float32)
            dist = (pos.unsqueeze(0) - pos.unsqueeze(1)).abs()
            m = torch.tensor(alibi_slopes(H), dtype=torch.float32).view(1, H, 1, 1)
            scores = scores - m * dist
        if self.pe == "fire":
            scores = scores + self.fire(T)
        if self.pe == "cope":
            masked = scores.masked_fill(~real, float("-inf"))
            scores = scores + self.cope(q, masked)
        if bias is not None:  # KERPLE's, which every layer shares
            scores = scores + bias
        scores = scores.masked_fill(~real, float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        return self.out_proj(y.transpose(1, 2).reshape(B, T, C))


class ExplicitLayer(nn.Module):
    def __init__(self, C, heads, F, norm_first, act, pe, split, out_bias=True):
        super().__init__()
        self.self_attn = ExplicitAttention(C, heads, pe, split, out_bias)
        self.linear1, self.linear2 = nn.Linear(C, F), nn.Linear(F, C)
        self.norm1, self.norm2 = nn.LayerNorm(C), nn.LayerNorm(C)
        self.norm_first = norm_first
        self.act = nn.functional.relu if act == "relu" else nn.functional.gelu

    def forward(self, x, real, bias=None):
        ff = lambda h: self.linear2(self.act(self.linear1(h)))
        if self.norm_first:
            x = x + self.self_attn(self.norm1(x), real, bias)
            return x + ff(self.norm2(x))
        x = self.norm1(x + self.self_attn(x, real, bias))
        return self.norm2(x + ff(x))


class ExplicitModel(nn.Module):
    def __init__(self, V, C, heads, layers, F, K, norm_first, act, pe, split, options=None,
                 causal=False, out_bias=True):
        super().__init__()
        self.causal = causal
        self.embedding = nn.Embedding(V, C)
        self.layers = nn.ModuleList(ExplicitLayer(C, heads, F, norm_first, act, pe, split,
                                                  out_bias) for _ in range(layers))
        self.norm = nn.LayerNorm(C) if norm_first else None
        self.head = nn.Linear(C, K)
        if pe == "kerple":
            self.kerple_log = KerpleLog(heads)
        if pe == "kerple_power":  # the C table keeps its name in either form
            self.kerple_log = KerplePower(heads)
        if pe in ("dpb", "dpb_log"):  # x-transformers' defaults, but for the options given
            o = options or {}
            self.dynamic_pos_bias = DynamicPositionBias(
                int(o.get("--dpb-width", C // 4)), heads=heads,
                depth=int(o.get("--dpb-depth", 2)),
                log_distance=o.get("--dpb-distance") == "log")

    def forward(self, ids, lens):
        B, T = ids.shape
        real = torch.arange(T).unsqueeze(0) < lens.unsqueeze(1)
        # the keys each query sees (B,1,T,T): the real ones, and with the
        # causal mask those at or before it
        seen = real.view(B, 1, 1, T)
        if self.causal:
            seen = seen & torch.ones(T, T, dtype=torch.bool).tril()
        x = self.embedding(ids)
        bias = self.kerple_log(T) if hasattr(self, "kerple_log") else None
        if hasattr(self, "dynamic_pos_bias"):
            bias = self.dynamic_pos_bias(T, T)
        for layer in self.layers:
            x = layer(x, seen, bias)
        hidden = self.norm(x) if self.norm is not None else x
        pooled = (hidden * real.unsqueeze(2)).sum(1) / lens.unsqueeze(1)
        return hidden, pooled, self.head(pooled)


def state_names(model):
    # the C model's names: torch's, without the wrapper's "encoder." prefix
    return {name.replace("encoder.", "", 1): p for name, p in model.named_parameters()}


def tensors(model):
    # name -> (value, gradient) under the C model's names, Transformer-XL's,
    # KERPLE's, FIRE's, dpb's and CoPE's parts packed into their tables
    packed = (XlRelative, KerpleLog, KerplePower, Fire, DynamicPositionBias, CoPE)
    inside = {n for n, mod in model.named_modules() if isinstance(mod, packed)}
    out = {}
    for n, p in state_names(model).items():
        if not any(n.startswith(m + ".") for m in inside):
            out[n] = (p, p.grad)
    for n, mod in model.named_modules():
        if isinstance(mod, packed):
            out[n + ".weight"] = (mod.table(), mod.table(grad=True))
    return out


def save(path, t):
    np.save(path, t.detach().numpy().astype(np.float32))


# The C scheme and its options for a fixture's pe that is not a scheme's name.
SCHEMES = {"kerple_power": ("kerple", {"--kerple-form": "power"}),
           "cope": ("cope", {"--cope-max-pos": COPE_MAX_POS}),
           "dpb_log": ("dpb", {"--dpb-distance": "log", "--dpb-depth": "3",
                               "--dpb-width": "6"})}


def make_case(name, norm_first, act, pe, seed, split=False, causal=False, out_bias=True):
    torch.manual_seed(seed)
    V, C, heads, layers, F, K, B, T = 11, 16, 4, 2, 32, 3, 3, 7
    lens = torch.tensor([7, 4, 6])
    scheme, options = SCHEMES.get(pe, (pe, {}))
    if pe in ("rope", "xpos", "alibi", "xl", "kerple", "kerple_power", "fire", "dpb", "dpb_log",
              "cope"):
        model = ExplicitModel(V, C, heads, layers, F, K, norm_first, act, pe, split, options,
                              causal, out_bias)
    else:
        model = Model(V, C, heads, layers, F, K, norm_first, act, pe, max_len=T, causal=causal)
    model.train()  # dropout is 0; training mode keeps torch off its fast path
    # biases and LayerNorm parameters away from their initial 0 and 1, so
    # the fixture exercises every term
    with torch.no_grad():
        for n, p in model.named_parameters():
            if p.dim() == 1:
                p.add_(0.1 * torch.randn_like(p))
        # FIRE's c larger, and its threshold L inside the sentence, so that
        # queries 4 to 6 divide by their own position
        for mod in model.modules():
            if isinstance(mod, Fire):
                mod.c.fill_(0.3)
                mod.L_multiplier.fill_(3.5 / 512)
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
        f.write(f"norm {'pre' if norm_first else 'post'}\nact {act}\n")
        f.write(f"pe {scheme}\n" + "".join(f"{k} {v}\n" for k, v in options.items()))
        f.write(f"layout {'split' if split else 'interleaved'}\n")
        f.write(f"causal {1 if causal else 0}\n")
        if not out_bias:  # the C model's --no-out-bias
            f.write("out_bias 0\n")
    save(os.path.join(d, "ids.npy"), ids.float())
    save(os.path.join(d, "lens.npy"), lens.float())
    save(os.path.join(d, "labels.npy"), labels.float())
    for n, (p, g) in tensors(model).items():
        save(os.path.join(d, "params", n + ".npy"), p)
        save(os.path.join(d, "grads", n + ".npy"), g)
    save(os.path.join(d, "hidden.npy"), hidden)
    save(os.path.join(d, "pooled.npy"), pooled)
    save(os.path.join(d, "logits.npy"), logits)
    save(os.path.join(d, "loss.npy"), loss)
    print(f"{name}: loss {loss.item():.6f}, {len(tensors(model))} parameter tensors")


CASES = {
    "post_relu_sinusoidal": (False, "relu", "sinusoidal", 1, {}),
    "pre_gelu_learned": (True, "gelu", "learned", 2, {}),
    "post_relu_rope": (False, "relu", "rope", 3, {}),
    "pre_gelu_rope_split": (True, "gelu", "rope", 4, {"split": True}),
    "pre_gelu_alibi": (True, "gelu", "alibi", 5, {}),
    "post_relu_sinusoidal_causal": (False, "relu", "sinusoidal", 6, {"causal": True}),
    "pre_gelu_none_causal": (True, "gelu", "none", 7, {"causal": True}),
    "post_gelu_xl": (False, "gelu", "xl", 8, {}),
    "post_relu_kerple": (False, "relu", "kerple", 8, {}),
    "pre_gelu_fire": (True, "gelu", "fire", 9, {}),
    "post_gelu_xpos": (False, "gelu", "xpos", 10, {}),
    "pre_relu_kerple_power": (True, "relu", "kerple_power", 11, {}),
    "post_gelu_dpb": (False, "gelu", "dpb", 12, {}),
    "pre_relu_dpb_log": (True, "relu", "dpb_log", 13, {}),
    "post_relu_cope": (False, "relu", "cope", 14, {}),
    "pre_gelu_cope_causal": (True, "gelu", "cope", 15, {"causal": True}),
    "post_relu_alibi_no_out_bias": (False, "relu", "alibi", 16, {"out_bias": False}),
}

if __name__ == "__main__":
    torch.set_num_threads(1)
    for name in sys.argv[1:] or CASES:
        if name not in CASES:
            sys.exit(f"make_fixtures.py: no case '{name}'; the cases: {', '.join(CASES)}")
        norm_first, act, pe, seed, extra = CASES[name]
        make_case(name, norm_first, act, pe, seed, **extra)
