#!/usr/bin/python3
"""How many of a 16-bit checkpoint's weights are nonzero subnormals, and a copy with them flushed
(issue 28: F16 decode on Intel). Run with Debian's Python and NumPy (no network):

    /usr/bin/python3 bench/f16_subnormals.py [file.safetensors ...]       # count
    /usr/bin/python3 bench/f16_subnormals.py --flush in.safetensors out.safetensors

Why it matters: the F16 GEMV (core/kernels/gemm_low_bit_wasmsimd.cpp, F16's finite fast path) moves
a half's bits to float32's places, so a subnormal half (exponent 0, mantissa != 0) becomes a
float32 denormal that it multiplies by x 2^112; BF16's widening (a shift) gives a float32 denormal
for a subnormal BF16. Intel cores take a microcode assist for a multiply with a denormal input
(wasm cannot set DAZ/FTZ); AMD's do not.

Counting: per tensor, the share of nonzero subnormal values, and of runs holding at least one,
in the engine's layout (GPT-2's Conv1D weights, hub (in, out), are transposed to (out, in) rows as
core/src/pretrained/hub_names.cpp loads them): aligned runs of 4 and 8 values along a row, and
the GEMV's vectors, the even and the odd 4 values of each run of 8 (its load8_split: one multiply
each). "GEMV" sums the matrices a decode step multiplies by: every 2-D tensor but the position
table (wpe); the token embedding is the tied LM head. With no file, the bench's: GPT-2's F16 file,
SmolLM2's BF16 file, and SmolLM2's float32 file rounded to F16 (as an F16 export of it would be).

--flush: the same file (same header, same byte layout) with every nonzero subnormal F16/BF16 value
replaced by a zero of its sign: a measurement device for bench/ab_decode.mjs's "<wasm>@<weights>"
variants, not a product option (it changes the model).
"""
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, ".cache")
CONV1D = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight")
# dtype -> (exponent mask, mantissa mask) of its 16 bits
MASKS = {"F16": (0x7C00, 0x03FF), "BF16": (0x7F80, 0x007F)}


def read(path):
    """(header without __metadata__, the data section's offset, the file's bytes as a mutable array)."""
    data = np.fromfile(path, dtype=np.uint8)
    (n,) = struct.unpack("<Q", data[:8].tobytes())
    header = json.loads(data[8 : 8 + n].tobytes())
    header.pop("__metadata__", None)
    return header, 8 + n, data


def halves(data, start, info):
    begin, end = info["data_offsets"]
    return data[start + begin : start + end].view("<u2").reshape(info["shape"])


def subnormal(bits, dtype):
    exponent, mantissa = MASKS[dtype]
    return ((bits & exponent) == 0) & ((bits & mantissa) != 0)


def engine_rows(name, mask):
    if mask.ndim != 2:
        return mask.reshape(1, -1)
    return mask.T if name.endswith(CONV1D) else mask


def counts(rows):
    """[values, subnormal, runs of 4, of them holding one, runs of 8, ..., GEMV vectors, ...]."""
    k = rows.shape[1] - rows.shape[1] % 8
    r8 = rows[:, :k].reshape(rows.shape[0], -1, 8)
    r4 = r8.reshape(rows.shape[0], -1, 4)
    split = np.concatenate([r8[:, :, 0::2], r8[:, :, 1::2]], axis=1)  # even and odd halves
    return np.array(
        [rows.size, rows.sum(), r4.shape[0] * r4.shape[1], r4.any(-1).sum(), r8.shape[0] * r8.shape[1],
         r8.any(-1).sum(), split.shape[0] * split.shape[1], split.any(-1).sum()],
        dtype=np.int64,
    )


def pct(a, b):
    return f"{100.0 * a / b:.3f}%" if b else "-"


def line(label, c):
    return (f"  {label:<34} {c[0]:>11} values  subnormal {pct(c[1], c[0]):>8}  runs of 4 {pct(c[3], c[2]):>8}"
            f"  of 8 {pct(c[5], c[4]):>8}  GEMV vectors {pct(c[7], c[6]):>8}")


def kind(name):
    if name.endswith(("wte.weight", "embed_tokens.weight")):
        return "token embedding (LM head)"
    if name.endswith("wpe.weight"):
        return "position table"
    if "attn." in name:
        return "attention matrices"
    if ".mlp." in name:
        return "MLP matrices"
    return "norms and biases"


def report(label, tensors):
    """tensors: [(name, boolean subnormal mask in the file's shape)]."""
    by_kind = {}
    gemv = np.zeros(8, dtype=np.int64)
    total = np.zeros(8, dtype=np.int64)
    for name, mask in tensors:
        c = counts(engine_rows(name, mask))
        by_kind[kind(name)] = by_kind.get(kind(name), 0) + c
        total += c
        if mask.ndim == 2 and not name.endswith("wpe.weight"):
            gemv += c
    print(label)
    for k, c in sorted(by_kind.items()):
        print(line(k, c))
    print(line("all", total))
    print(line("GEMV (a decode step's weights)", gemv))


def count_file(path):
    header, start, data = read(path)
    dtypes = {info["dtype"] for info in header.values()}
    tensors = [(name, subnormal(halves(data, start, info), info["dtype"]))
               for name, info in header.items() if info["dtype"] in MASKS]
    report(f"{os.path.relpath(path, os.path.dirname(HERE))} ({', '.join(sorted(dtypes))})", tensors)


def count_rounded(path):
    """A float32 file's values rounded to F16 (numpy's astype: round to nearest even)."""
    header, start, data = read(path)
    tensors = []
    for name, info in header.items():
        if info["dtype"] != "F32":
            continue
        begin, end = info["data_offsets"]
        values = data[start + begin : start + end].view("<f4").reshape(info["shape"])
        tensors.append((name, subnormal(values.astype(np.float16).view("<u2"), "F16")))
    report(f"{os.path.relpath(path, os.path.dirname(HERE))} (F32 rounded to F16)", tensors)


def flush(source, target):
    header, start, data = read(source)
    flushed = 0
    for info in header.values():
        if info["dtype"] not in MASKS:
            continue
        bits = halves(data, start, info)
        mask = subnormal(bits, info["dtype"])
        flushed += int(mask.sum())
        bits[mask] &= 0x8000
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    data.tofile(target)
    print(f"{target}: {flushed} subnormal values flushed to zero")


def main(argv):
    if argv[:1] == ["--flush"] and len(argv) == 3:
        return flush(argv[1], argv[2])
    if any(a.startswith("-") for a in argv):
        sys.exit(__doc__)
    for path in argv:
        count_file(path)
    if not argv:
        count_file(os.path.join(CACHE, "gpt2-small", "model-f16", "model.safetensors"))
        count_file(os.path.join(CACHE, "smollm2-135m", "model-bf16", "model.safetensors"))
        count_rounded(os.path.join(CACHE, "smollm2-135m", "model.safetensors"))


if __name__ == "__main__":
    main(sys.argv[1:])
