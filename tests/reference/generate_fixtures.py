#!/usr/bin/python3
"""Writes the PyTorch reference fixtures the core (and the wasm build) are tested against.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_fixtures.py
Output: tests/reference/fixtures/{mha,encoder_layer,decoder_layer}.json (committed, so CI
needs no PyTorch).

Weights and inputs are drawn in float32 and the forward pass runs in float64, so the
expected values are the exact answer for the float32 numbers the core receives.
Gradients stay enabled on purpose: that keeps PyTorch off its "fast path", which in
eval mode writes zeros to padded positions instead of computing them.
"""
import json
import os

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")


def flat(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def rand(*shape, gen):
    return torch.randn(*shape, generator=gen, dtype=torch.float32)


def padding_mask(lengths, seq):
    # (B, S) True = ignore that key, as key_padding_mask
    return torch.tensor([[s >= n for s in range(seq)] for n in lengths])


def causal(sq, sk):
    # (Sq, Sk) True = blocked, as torch.nn.Transformer.generate_square_subsequent_mask
    return torch.triu(torch.ones(sq, sk, dtype=torch.bool), diagonal=1)


def randomize(module, gen):
    # Non-trivial biases and LayerNorm parameters, so every term is exercised.
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(rand(*p.shape, gen=gen) * 0.5)


def mha_weights(m):
    return {
        "in_proj_weight": flat(m.in_proj_weight),
        "in_proj_bias": flat(m.in_proj_bias),
        "out_proj_weight": flat(m.out_proj.weight),
        "out_proj_bias": flat(m.out_proj.bias),
    }


def mha_case(name, gen, batch, sq, sk, e, heads, lengths=None, is_causal=False, user_mask=None, cross=False):
    m = nn.MultiheadAttention(e, heads, batch_first=True, dropout=0.0)
    randomize(m, gen)
    query = rand(batch, sq, e, gen=gen)
    key = rand(batch, sk, e, gen=gen) if cross else query
    value = rand(batch, sk, e, gen=gen) if cross else query
    kpm = padding_mask(lengths, sk) if lengths is not None else None
    attn_mask = None
    if is_causal:
        attn_mask = causal(sq, sk)
    if user_mask is not None:
        attn_mask = user_mask if attn_mask is None else (attn_mask | user_mask)
    md = m.double()
    out, weights = md(query.double(), key.double(), value.double(), key_padding_mask=kpm, attn_mask=attn_mask,
                      need_weights=True, average_attn_weights=False)
    case = {
        "name": name, "batch": batch, "query_len": sq, "key_len": sk, "embed_dim": e, "heads": heads,
        "causal": is_causal,
        "key_padding_mask": flat(kpm.to(torch.float32)) if kpm is not None else None,
        "attn_mask": flat(user_mask.to(torch.float32)) if user_mask is not None else None,
        "query": flat(query), "key": flat(key), "value": flat(value),
        "expected_output": flat(out), "expected_weights": flat(weights),
    }
    case.update(mha_weights(m))
    return case


def layer_norm_weights(prefix, norm):
    return {prefix + ".weight": flat(norm.weight), prefix + ".bias": flat(norm.bias)}


def ffn_weights(layer):
    return {"linear1.weight": flat(layer.linear1.weight), "linear1.bias": flat(layer.linear1.bias),
            "linear2.weight": flat(layer.linear2.weight), "linear2.bias": flat(layer.linear2.bias)}


def encoder_case(name, gen, batch, seq, e, heads, ffn, lengths, norm_first, activation, is_causal=False):
    layer = nn.TransformerEncoderLayer(e, heads, dim_feedforward=ffn, dropout=0.0, activation=activation,
                                       batch_first=True, norm_first=norm_first)
    randomize(layer, gen)
    layer.eval()
    src = rand(batch, seq, e, gen=gen)
    kpm = padding_mask(lengths, seq)
    mask = causal(seq, seq) if is_causal else None
    out = layer.double()(src.double(), src_mask=mask, src_key_padding_mask=kpm)
    weights = {"self_attn." + k: v for k, v in mha_weights(layer.self_attn).items()}
    weights.update(ffn_weights(layer))
    weights.update(layer_norm_weights("norm1", layer.norm1))
    weights.update(layer_norm_weights("norm2", layer.norm2))
    return {"name": name, "batch": batch, "seq": seq, "d_model": e, "heads": heads, "ffn_dim": ffn,
            "lengths": lengths, "norm_first": norm_first, "activation": activation, "causal": is_causal,
            "input": flat(src), "weights": weights, "expected": flat(out)}


def decoder_case(name, gen, batch, tgt_seq, src_seq, e, heads, ffn, tgt_lengths, src_lengths, norm_first, activation):
    layer = nn.TransformerDecoderLayer(e, heads, dim_feedforward=ffn, dropout=0.0, activation=activation,
                                       batch_first=True, norm_first=norm_first)
    randomize(layer, gen)
    layer.eval()
    tgt = rand(batch, tgt_seq, e, gen=gen)
    memory = rand(batch, src_seq, e, gen=gen)
    out = layer.double()(tgt.double(), memory.double(), tgt_mask=causal(tgt_seq, tgt_seq),
                         tgt_key_padding_mask=padding_mask(tgt_lengths, tgt_seq),
                         memory_key_padding_mask=padding_mask(src_lengths, src_seq))
    weights = {"self_attn." + k: v for k, v in mha_weights(layer.self_attn).items()}
    weights.update({"cross_attn." + k: v for k, v in mha_weights(layer.multihead_attn).items()})
    weights.update(ffn_weights(layer))
    for i in (1, 2, 3):
        weights.update(layer_norm_weights("norm%d" % i, getattr(layer, "norm%d" % i)))
    return {"name": name, "batch": batch, "target_seq": tgt_seq, "source_seq": src_seq, "d_model": e,
            "heads": heads, "ffn_dim": ffn, "target_lengths": tgt_lengths, "source_lengths": src_lengths,
            "norm_first": norm_first, "activation": activation,
            "target": flat(tgt), "memory": flat(memory), "weights": weights, "expected": flat(out)}


def write(name, cases):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump({"generator": "tests/reference/generate_fixtures.py", "torch": torch.__version__,
                   "cases": cases}, f, separators=(",", ":"))
        f.write("\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    gen = torch.Generator().manual_seed(20261121)
    user = torch.tensor([[False, True, False, False, True], [False, False, True, False, False],
                         [True, False, False, False, False], [False, False, False, True, False]])
    write("mha.json", [
        mha_case("seed003_b2_s3_e4_h1", gen, 2, 3, 3, 4, 1),
        mha_case("self_h2", gen, 2, 4, 4, 8, 2),
        mha_case("padding_h4", gen, 3, 5, 5, 8, 4, lengths=[5, 3, 1]),
        mha_case("causal_h2", gen, 2, 6, 6, 8, 2, is_causal=True),
        mha_case("causal_padding_h2", gen, 2, 6, 6, 12, 3, lengths=[6, 4], is_causal=True),
        mha_case("cross_sq3_sk5", gen, 2, 3, 5, 8, 2, lengths=[5, 2], cross=True),
        mha_case("user_mask_sq4_sk5", gen, 1, 4, 5, 6, 3, user_mask=user, cross=True),
    ])
    write("encoder_layer.json", [
        encoder_case("post_ln_relu", gen, 2, 5, 8, 2, 16, [5, 3], False, "relu"),
        encoder_case("pre_ln_gelu", gen, 2, 5, 8, 4, 12, [4, 5], True, "gelu"),
        encoder_case("post_ln_gelu_causal", gen, 2, 4, 6, 3, 10, [4, 2], False, "gelu", is_causal=True),
    ])
    write("decoder_layer.json", [
        decoder_case("post_ln_relu", gen, 2, 4, 5, 8, 2, 16, [4, 2], [5, 3], False, "relu"),
        decoder_case("pre_ln_gelu", gen, 2, 3, 6, 8, 4, 12, [3, 3], [2, 6], True, "gelu"),
    ])


if __name__ == "__main__":
    main()
