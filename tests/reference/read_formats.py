#!/usr/bin/python3
"""Checks posenc's checkpoints and cell records against docs/formats.md.

Written from that page alone (its sections "Checkpoints", "The checksum",
"Parameter names and order" and "Cell files"), not from the C sources, so
that a file the programs write and this reader refuses shows the page to
be wrong or incomplete: the guards suite runs it on files the programs
have just written (tests/test_guard_formats.c).

    python3 tests/reference/read_formats.py FILE...

A FILE that starts with POSENCMD is a checkpoint: its size field, its
checksum, and, for versions 6 and 7, every field walked to the checksum and
the parameter count worked out from the model's shape, scheme and (version
7) model options. Versions 1 to 5 are checked for their header, size and checksum only (their layouts
are the page's "Earlier versions"). A FILE that starts with "posenc cell "
is a cell record: its lines in order, their counts and its checksum.
Prints one line per file, "FILE: ok, ..." or "FILE: BAD: why"; exits 1 if
any file is bad, 2 on wrong usage. The standard library is all it needs.
"""
import struct
import sys

# "The checksum": FNV-1a's loop and prime from posenc's own starting value,
# which is not FNV-1a's standard offset basis (14695981039346656037).
BASIS = 1469598103934665603
PRIME = 1099511628211


def checksum(data):
    h = BASIS
    for b in data:
        h = ((h ^ b) * PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


class Bad(Exception):
    pass


class Reader:
    """Little-endian fields, one after another ("Checkpoints")."""

    def __init__(self, data, end):
        self.data, self.off, self.end = data, 0, end

    def take(self, n, what):
        if self.off + n > self.end:
            raise Bad(f"{what} runs past the checksum (at byte {self.off}, {n} bytes)")
        b = self.data[self.off:self.off + n]
        self.off += n
        return b

    def u32(self, what):
        return struct.unpack("<I", self.take(4, what))[0]

    def u64(self, what):
        return struct.unpack("<Q", self.take(8, what))[0]

    def f64(self, what):
        return struct.unpack("<d", self.take(8, what))[0]

    def string(self, what):
        b = self.take(self.u32(what), what)
        if b"\0" in b:
            raise Bad(f"{what} holds a NUL byte")
        return b.decode("utf-8")

    def pairs(self, what):
        return [(self.string(what), self.string(what)) for _ in range(self.u64(what))]


# "Parameter names and order": what the page says each scheme owns.
ONE_CHANNEL = ("integer", "normalized", "sine")
WIDE = ("sinusoidal", "learned")
NO_TABLE = ("none", "integer", "normalized", "sine", "sincos", "sinusoidal", "rope", "xpos",
            "alibi")
# "Checkpoints", version 7: the model options and their values
MODEL_OPTIONS = {"first-draws": ("pytorch", "reference"), "out-bias": ("true", "false")}


def param_count(m, scheme, opts, model_opts):
    """The floats of a model of this shape, scheme and model options, tensor by tensor."""
    V, C, NH, L, F, K = m["vocab"], m["C"], m["NH"], m["L"], m["F"], m["K"]
    HS = C // NH

    def num(name, default):
        return int(float(opts[name])) if name in opts else default

    combine = opts.get("combine", "concat" if scheme in ONE_CHANNEL + ("sincos",) else "add")
    if scheme in ONE_CHANNEL:
        w = 1
    elif scheme == "sincos":
        w = 2 * num("pairs", 1)
    elif scheme in WIDE:
        w = C if combine == "add" else num("pe-dim", C // 2)
    else:
        w = 0
    E = C - w if combine == "concat" and w else C
    # dpb: an MLP 1 -> W -> ... -> NH with D hidden layers, W = C/4 (at least 1)
    W, D = num("dpb-width", max(C // 4, 1)), num("dpb-depth", 2)
    shared = {"learned": m["max_len"] * w,
              "t5": num("buckets", 32) * NH,
              "shaw": 2 * (2 * num("max-relative", 16) + 1) * HS,
              "kerple": 2 * NH,
              "dpb": 2 * W + (D - 1) * (W + 1) * W + NH * (W + 1)}
    per_layer = {"xl": (C + 2) * C, "fire": (NH + 2) * (num("fire-width", 32) + 1),
                 "cope": 2 * num("cope-max-pos", 16) * HS}
    if scheme not in NO_TABLE and scheme not in shared and scheme not in per_layer:
        raise Bad(f"scheme '{scheme}' is not among the page's schemes")
    # the output projection's bias is absent with the model option out-bias false
    out_bias = 0 if model_opts.get("out-bias") == "false" else C
    layer = 3 * C * C + 3 * C + C * C + out_bias + F * C + F + C * F + C + 4 * C
    n = V * E + shared.get(scheme, 0) + L * (layer + per_layer.get(scheme, 0))
    if m["pre_norm"]:
        n += 2 * C
    return n + K * C + K


def walk_v6(r, flags, version):
    """Every field of the version 6 and 7 table, in order; returns a summary."""
    names = ("vocab", "C", "NH", "L", "F", "max_len")
    m = {k: r.u64(k) for k in names}
    m["pre_norm"] = r.u32("norm") == 1
    r.u32("act")
    r.u32("scale_embed")
    m["K"] = r.u64("n_classes")
    r.u32("per_token")
    r.u64("seed")
    r.u32("causal")
    r.f64("dropout")
    r.u32("pooling")
    scheme = r.string("scheme")
    opts = dict(r.pairs("scheme options"))
    # version 7: the model options, after the scheme's (none before it)
    model_opts = dict(r.pairs("model options")) if version >= 7 else {}
    for name, value in model_opts.items():
        if name not in MODEL_OPTIONS or value not in MODEL_OPTIONS[name]:
            raise Bad(f"model option ({name}, {value}) is not among the page's")
    words = [r.string("a word") for _ in range(r.u64("the vocabulary's count"))]
    if len(words) != m["vocab"] or words[:2] != ["<pad>", "<unk>"]:
        raise Bad(f"{len(words)} words beginning {words[:2]}, where vocab_size says "
                  f"{m['vocab']} beginning <pad>, <unk>")
    for _ in range(r.u64("the classes' count")):
        r.string("a class")
    n = r.u64("the parameter count")
    want = param_count(m, scheme, opts, model_opts)
    if n != want:
        raise Bad(f"{n} parameters, where the page's table gives {want} for this shape and "
                  f"scheme {scheme}")
    r.take(4 * n, "the parameters")
    if flags & 1:
        r.pairs("run options")
        r.take(68, "the training state")
        r.take(8 * n, "Adam's moments")
    if r.off != r.end:
        raise Bad(f"{r.end - r.off} bytes lie between the last field and the checksum")
    extra = "".join(f", {k} {v}" for k, v in model_opts.items())
    return (f"scheme {scheme}{extra}, {n} parameters" +
            (", training state" if flags & 1 else ""))


def check_checkpoint(data):
    if len(data) < 32:
        raise Bad(f"{len(data)} bytes: shorter than a header and a checksum")
    version, flags, size = struct.unpack("<IIQ", data[8:24])
    if not 1 <= version <= 7:
        raise Bad(f"version {version}; the page describes 1 to 7")
    if size != len(data):
        raise Bad(f"its size field says {size} bytes, the file has {len(data)}")
    if flags & ~1:
        raise Bad(f"unknown flags {flags}")
    stored = struct.unpack("<Q", data[-8:])[0]
    sum_ = checksum(data[:-8])
    if stored != sum_:
        raise Bad(f"checksum {stored:016x} stored, {sum_:016x} computed")
    what = "header and checksum only"
    if version >= 6:
        r = Reader(data, len(data) - 8)
        r.off = 24
        what = walk_v6(r, flags, version)
    return f"checkpoint version {version}, {size} bytes, {what}; checksum {sum_:016x}"


def check_cell(data):
    magic = b"posenc cell 4\n"
    if not data.startswith(magic):
        raise Bad(f"not a version 4 record: it starts {data[:14]!r}")
    if not data.endswith(b"\n"):
        raise Bad("its last line has no newline")
    lines = data[:-1].split(b"\n")
    keys = ["id", "kind", "task", "name", "seed", "source", "settings", "kernels",
            "seconds", "results"]
    at = 1  # line index after the magic

    def field(key):
        nonlocal at
        if at >= len(lines) or not lines[at].startswith(key.encode() + b" "):
            got = lines[at][:40] if at < len(lines) else b"the end of the file"
            raise Bad(f"{got!r} where the '{key}' line belongs")
        at += 1
        return lines[at - 1][len(key) + 1:].decode("utf-8")

    values = {k: field(k) for k in keys}
    for _ in range(int(values["results"])):
        field("result")
        for key in ("per_len", "exact_len"):
            words = field(key).split(" ")
            if int(words[0]) != len(words) - 1:
                raise Bad(f"a {key} line announces {words[0]} numbers and holds "
                          f"{len(words) - 1}")
    covered = sum(len(line) + 1 for line in lines[:at])
    stored = field("checksum")
    sum_ = f"{checksum(data[:covered]):016x}"
    if stored != sum_:
        raise Bad(f"checksum {stored} stored, {sum_} computed over its first {covered} bytes")
    if at != len(lines) - 1 or lines[at] != b"end":
        raise Bad("its 'end' line is missing or not its last line")
    return (f"cell record {values['id']} ({values['kind']}), {values['results']} results; "
            f"checksum {sum_}")


def main(paths):
    bad = 0
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
            if data.startswith(b"POSENCMD"):
                what = check_checkpoint(data)
            elif data.startswith(b"posenc cell "):
                what = check_cell(data)
            else:
                raise Bad("neither a checkpoint (POSENCMD) nor a cell record (posenc cell)")
            print(f"{path}: ok, {what}")
        except (Bad, OSError, ValueError, UnicodeDecodeError, struct.error) as e:
            print(f"{path}: BAD: {e}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
