"""Helpers shared by the reference scripts (fixture generators, models, round trip)."""
import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")


def flat(t):
    """A tensor as a flat list of Python floats (float64 values; JSON writes them with repr)."""
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def rand(*shape, gen):
    """N(0, 1) samples in float32 from the given generator."""
    return torch.randn(*shape, generator=gen, dtype=torch.float32)


def padding_mask(lengths, seq):
    """(B, S) bool, True = padding (ignore that key), as key_padding_mask."""
    return torch.tensor([[s >= n for s in range(seq)] for n in lengths], dtype=torch.bool).reshape(len(lengths), seq)


def causal(sq, sk):
    """(Sq, Sk) bool, True = blocked, as torch.nn.Transformer.generate_square_subsequent_mask."""
    return torch.triu(torch.ones(sq, sk, dtype=torch.bool), diagonal=1)


def randomize(module, gen):
    """Every parameter ~ N(0, 1) * 0.5 (float32), in parameters() order (= state_dict order).

    Non-trivial biases and LayerNorm parameters, so every term is exercised.
    """
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(rand(*p.shape, gen=gen) * 0.5)


def write_json(path, obj):
    """Compact JSON, one trailing newline (floats written with Python's repr)."""
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
