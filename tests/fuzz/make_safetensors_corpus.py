#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_safetensors (tests/fuzz/corpus/safetensors/):
a few small valid files in the layouts the reference implementation writes, and
broken ones that reach each of the reader's checks. Standard library only.
Run from anywhere: python3 tests/fuzz/make_safetensors_corpus.py"""
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "safetensors")


def header_bytes(header, pad=True):
    text = header if isinstance(header, str) else json.dumps(header, separators=(",", ":"))
    raw = text.encode("utf-8")
    if pad:
        raw += b" " * ((8 - len(raw) % 8) % 8)
    return raw


def file(header, data=b"", pad=True):
    raw = header_bytes(header, pad)
    return struct.pack("<Q", len(raw)) + raw + data


def f32(*values):
    return struct.pack("<%df" % len(values), *values)


def u16(*values):
    return struct.pack("<%dH" % len(values), *values)


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


SEEDS = {
    # valid
    "valid_f32": file({"x": entry("F32", [2], 0, 8)}, f32(1.0, -2.0)),
    "valid_reference_layout": file(
        {"__metadata__": {"format": "pt"}, "bias": entry("F32", [2], 0, 8), "weight": entry("F32", [2, 2], 8, 24)},
        f32(0.5, -0.5, 1, 2, 3, 4)),
    "valid_shuffled_keys": file(
        '{"weight":{"shape":[2,2],"data_offsets":[8,24],"dtype":"F32"},'
        '"__metadata__":{"format":"pt"},"bias":{"data_offsets":[0,8],"dtype":"F32","shape":[2]}}',
        f32(0.5, -0.5, 1, 2, 3, 4)),
    "valid_f16_bf16": file(
        {"h": entry("F16", [2, 2], 0, 8), "b": entry("BF16", [2], 8, 12)},
        u16(0x3C00, 0x0001, 0x8000, 0x7BFF) + u16(0x3F80, 0x7F7F)),
    "valid_zero_elements": file(
        {"e": entry("F32", [0, 3], 0, 0), "s": entry("F16", [], 0, 2), "z": entry("BF16", [4, 0], 2, 2)},
        u16(0x3C00)),
    "valid_empty": file({}),
    "valid_unpadded": file({"x": entry("F32", [1], 0, 4)}, f32(3.0), pad=False),
    # broken
    "short": b"\x08\x00\x00",
    "header_beyond_file": struct.pack("<Q", 64) + b"{}",
    "not_json": file("{nope}"),
    "duplicate_name": file('{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                           '"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', f32(1)),
    "unsupported_dtype": file({"x": entry("I64", [1], 0, 8)}, bytes(8)),
    "shape_mismatch": file({"x": entry("F32", [3], 0, 8)}, f32(1, 2)),
    "truncated_data": file({"x": entry("F32", [4], 0, 16)}, f32(1, 2)),
    "overlap": file({"a": entry("F32", [2], 0, 8), "b": entry("F32", [2], 4, 12)}, f32(1, 2, 3)),
    "gap": file({"a": entry("F32", [1], 0, 4), "b": entry("F32", [1], 8, 12)}, f32(1, 2, 3)),
    "nan": file({"x": entry("F32", [2], 0, 8)}, f32(1.0, float("nan"))),
    "f16_inf": file({"x": entry("F16", [1], 0, 2)}, u16(0x7C00)),
    "deep": file('{"x":[[[[[[[[1]]]]]]]]}'),
    "bad_metadata": file({"__metadata__": {"n": 1}}),
}

if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print("wrote %d seeds to %s" % (len(SEEDS), OUT))
