"""Golden data for weights held in 16 or 8 bits (core/include/attention/storage.hpp).

Writes fixtures/low_bit.json:
  conversions: float32 values (as their uint32 bits, so nothing is lost in JSON) and the
    bits PyTorch's .to(torch.bfloat16) and .to(torch.float16) give them: round to nearest,
    ties to even, subnormals, overflow to inf, NaN. The engine must give the same bits.
  q8_0: matrices quantized to ggml's Q8_0 by the reference below (numpy, written from the
    block format as ggml documents it: blocks of 32 values along a row, d = max|x| / 127 in
    float32, q = round(x * (1 / d)) half away from zero, d stored as float16), with the
    stored scale bits, the int8 values and the values they read back as (f16(d) * q).

Run with /usr/bin/python3 (PyTorch 1.13); about a second.
"""
import json
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures", "low_bit.json")

BLOCK = 32


def f32_bits(values):
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def conversion_inputs(rng):
    specials = [
        0.0, -0.0, 1.0, -1.0, 0.1, 1 / 3, 65504.0, 65519.99, 65520.0, 1e6, -1e6, 3.0e38, -3.0e38,
        6.1e-5, 6.0e-8, 5.9e-8, 2.98e-8, 2.9e-8, 1e-40, -1e-40, 1.0e-45, float("inf"), float("-inf"),
    ]
    values = np.array(specials, dtype=np.float32)
    bits = list(f32_bits(values))
    # bfloat16 ties and near-ties: low 16 bits 0x8000 (tie), 0x7fff, 0x8001, with even and odd kept bits.
    for high in (0x3F80, 0x3F81, 0xC2C8, 0xC2C9, 0x7F7F):
        for low in (0x8000, 0x7FFF, 0x8001, 0x0000, 0xFFFF):
            bits.append((high << 16) | low)
    # float16 ties: a float32 exactly halfway between two halves (13 dropped bits 0x1000), both parities.
    for mant in (0x000, 0x001, 0x3FF, 0x200):
        for low in (0x1000, 0x0FFF, 0x1001):
            bits.append(0x3F800000 | (mant << 13) | low)  # around 1.x
            bits.append(0x38800000 | (mant << 13) | low)  # around 2^-14 (smallest normal half)
    # subnormal-half ties: 2^-24 * (k + 0.5)
    for k in (0, 1, 2, 3, 1022):
        bits.append(int(f32_bits([np.float32((k + 0.5) * 2.0 ** -24)])[0]))
    randoms = np.concatenate([
        rng.standard_normal(200).astype(np.float32),
        (rng.standard_normal(100) * 1e-5).astype(np.float32),
        (rng.standard_normal(100) * 3e4).astype(np.float32),
    ])
    bits.extend(int(b) for b in f32_bits(randoms))
    nan = np.array([np.nan], dtype=np.float32)
    bits.append(int(f32_bits(nan)[0]))
    return np.array(bits, dtype=np.uint32)


def to_bits16(x, dtype):
    return torch.from_numpy(x.view(np.float32).copy()).to(dtype).view(torch.int16).numpy().astype(np.uint16)


def quantize_q8_0(x):
    """(rows, cols) float32 -> (scale bits (rows, blocks) uint16, q (rows, blocks*32) int8), as ggml's reference."""
    rows, cols = x.shape
    blocks = (cols + BLOCK - 1) // BLOCK
    padded = np.zeros((rows, blocks * BLOCK), dtype=np.float32)
    padded[:, :cols] = x
    grouped = padded.reshape(rows, blocks, BLOCK)
    amax = np.abs(grouped).max(axis=2).astype(np.float32)
    d = (amax / np.float32(127)).astype(np.float32)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, np.float32(1) / np.where(d != 0, d, np.float32(1)), np.float32(0)).astype(np.float32)
    scaled = (grouped * inv[:, :, None]).astype(np.float32)  # one float32 product per value
    s64 = scaled.astype(np.float64)  # exact; rounding half away from zero is exact in float64
    q = (np.sign(s64) * np.floor(np.abs(s64) + 0.5)).astype(np.int8)
    d_bits = d.astype(np.float16).view(np.uint16)
    return d_bits, q.reshape(rows, blocks * BLOCK)


def dequantize_q8_0(d_bits, q, cols):
    rows = q.shape[0]
    d = d_bits.view(np.float16).astype(np.float32)
    values = (q.reshape(rows, -1, BLOCK).astype(np.float32) * d[:, :, None]).astype(np.float32)
    return values.reshape(rows, -1)[:, :cols]


def q8_cases(rng):
    cases = []
    for rows, cols in ((3, 32), (2, 70), (5, 1), (4, 97)):
        x = rng.standard_normal((rows, cols)).astype(np.float32)
        if cols >= 32:
            x[0, :32] = 0.0  # an all-zero block: d = 0, q = 0
            x[1, 3] = 40.0  # one outlier sets its block's scale
        if rows >= 4:
            x[3] = np.float32(127.0 / 2) * np.sign(x[3])  # exactly halfway values: |x| / d = 63.5
            x[3, 0] = 127.0
        cases.append(x)
    out = []
    for x in cases:
        d_bits, q = quantize_q8_0(x)
        out.append({
            "rows": int(x.shape[0]), "cols": int(x.shape[1]),
            "values_bits": [int(b) for b in f32_bits(x.ravel())],
            "scale_bits": [int(b) for b in d_bits.ravel()],
            "q": [int(v) for v in q.ravel()],
            "dequantized_bits": [int(b) for b in f32_bits(dequantize_q8_0(d_bits, q, x.shape[1]).ravel())],
        })
    return out


def main():
    rng = np.random.default_rng(27)
    bits = conversion_inputs(rng)
    data = {
        "generator": "tests/reference/generate_low_bit_fixtures.py",
        "torch": torch.__version__,
        "conversions": {
            "f32_bits": [int(b) for b in bits],
            "bf16_bits": [int(b) for b in to_bits16(bits, torch.bfloat16)],
            "f16_bits": [int(b) for b in to_bits16(bits, torch.float16)],
        },
        "q8_0": q8_cases(rng),
    }
    with open(OUT, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, len(bits), "conversions,", len(data["q8_0"]), "q8_0 matrices")


if __name__ == "__main__":
    main()
