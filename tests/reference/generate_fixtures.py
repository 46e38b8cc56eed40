#!/usr/bin/python3
"""Writes the PyTorch reference fixtures the core (and the wasm build) are tested against.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_fixtures.py
Output: tests/reference/fixtures/{mha,encoder_layer,decoder_layer,mha_options}.json (committed,
so CI needs no PyTorch). mha_options.json draws from its own seed, so adding it left the other
three files byte-for-byte as they were.

Weights and inputs are drawn in float32 and the forward pass runs in float64, so the
expected values are the exact answer for the float32 numbers the core receives.
Gradients stay enabled on purpose: that keeps PyTorch off its "fast path", which in
eval mode writes zeros to padded positions instead of computing them.
"""
import os

import torch
from torch import nn

from common import OUT, causal, flat, padding_mask, rand, randomize, write_json


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
    write_json(os.path.join(OUT, name), {"generator": "tests/reference/generate_fixtures.py",
                                         "torch": torch.__version__, "cases": cases})


def flat_or_none(t):
    return flat(t) if t is not None else None


def flat_mask_float(t):
    """A float additive mask, -inf written as null (JSON has no infinity)."""
    if t is None:
        return None
    return [None if v == float("-inf") else float(v) for v in t.reshape(-1).tolist()]


def mha_options_case(name, gen, batch, sq, sk, e, heads, kdim=None, vdim=None, bias=True, cross=False,
                     lengths=None, bool_mask=None, float_mask=None, need_weights=True, average=False):
    """nn.MultiheadAttention with the options the engine has to follow: bias=False, kdim/vdim
    (separate q/k/v projection weights), a float additive attn_mask (with -inf entries), a bool
    attn_mask, need_weights=False and average_attn_weights=True."""
    kdim = e if kdim is None else kdim
    vdim = e if vdim is None else vdim
    m = nn.MultiheadAttention(e, heads, dropout=0.0, bias=bias, kdim=kdim, vdim=vdim, batch_first=True)
    randomize(m, gen)
    query = rand(batch, sq, e, gen=gen)
    if cross:
        key = rand(batch, sk, kdim, gen=gen)
        value = rand(batch, sk, vdim, gen=gen)
    else:
        assert sq == sk and kdim == e and vdim == e
        key = value = query
    kpm = padding_mask(lengths, sk) if lengths is not None else None
    assert bool_mask is None or float_mask is None
    attn_mask = bool_mask if bool_mask is not None else float_mask
    # Every query row must keep at least one key (a fully masked row is NaN in PyTorch).
    blocked = torch.zeros(batch, sq, sk, dtype=torch.bool)
    if kpm is not None:
        blocked |= kpm[:, None, :]
    if bool_mask is not None:
        blocked |= bool_mask[None]
    if float_mask is not None:
        blocked |= torch.isinf(float_mask)[None]
    assert not blocked.all(dim=-1).any(), name
    md = m.double()
    out, weights = md(query.double(), key.double(), value.double(), key_padding_mask=kpm,
                      attn_mask=attn_mask.double() if float_mask is not None else attn_mask,
                      need_weights=need_weights, average_attn_weights=average)
    assert torch.isfinite(out).all(), name
    assert (weights is None) == (not need_weights), name
    if weights is not None:
        assert weights.shape == ((batch, sq, sk) if average else (batch, heads, sq, sk)), name
    separate = not m._qkv_same_embed_dim
    return {
        "name": name, "batch": batch, "query_len": sq, "key_len": sk, "embed_dim": e, "kdim": kdim, "vdim": vdim,
        "heads": heads, "bias": bias,
        "in_proj_weight": None if separate else flat(m.in_proj_weight),
        "q_proj_weight": flat(m.q_proj_weight) if separate else None,
        "k_proj_weight": flat(m.k_proj_weight) if separate else None,
        "v_proj_weight": flat(m.v_proj_weight) if separate else None,
        "in_proj_bias": flat_or_none(m.in_proj_bias),
        "out_proj_weight": flat(m.out_proj.weight),
        "out_proj_bias": flat_or_none(m.out_proj.bias),
        "query": flat(query), "key": flat(key), "value": flat(value),
        "key_padding_mask": flat(kpm.to(torch.float32)) if kpm is not None else None,
        "attn_mask_bool": flat(bool_mask.to(torch.float32)) if bool_mask is not None else None,
        "attn_mask_float": flat_mask_float(float_mask),
        "need_weights": need_weights, "average_attn_weights": average,
        "expected_output": flat(out), "expected_weights": flat_or_none(weights),
    }


def float_mask(gen, sq, sk, inf_positions):
    """(Sq, Sk) float32 additive mask: N(0, 1) finite values, -inf at the given (row, col) pairs."""
    m = rand(sq, sk, gen=gen)
    for r, c in inf_positions:
        m[r, c] = float("-inf")
    return m


def mha_options():
    gen = torch.Generator().manual_seed(20261122)
    user = torch.tensor([[False, True, False, True, False], [False, False, False, True, True],
                         [True, False, False, False, False], [False, True, True, False, False],
                         [False, False, True, False, False]])
    cases = [
        mha_options_case("self_nobias_e9_h3", gen, 2, 5, 5, 9, 3, bias=False, lengths=[5, 3]),
        mha_options_case("cross_kdim5_vdim7_e6_h2", gen, 2, 3, 4, 6, 2, kdim=5, vdim=7, cross=True,
                         lengths=[4, 2]),
        mha_options_case("float_mask_self_e8_h2", gen, 2, 5, 5, 8, 2,
                         float_mask=float_mask(gen, 5, 5, [(0, 1), (0, 4), (2, 0), (2, 3), (4, 2)])),
        mha_options_case("float_mask_padding_cross_e10_h5", gen, 3, 4, 6, 10, 5, cross=True, lengths=[6, 3, 4],
                         float_mask=float_mask(gen, 4, 6, [(0, 2), (1, 1), (1, 5), (3, 0), (3, 4)])),
        mha_options_case("no_weights_bool_mask_padding_e6_h3", gen, 2, 5, 5, 6, 3, lengths=[5, 2],
                         bool_mask=user, need_weights=False),
        mha_options_case("average_nobias_kdim3_vdim5_e4_h2", gen, 2, 3, 5, 4, 2, kdim=3, vdim=5, bias=False,
                         cross=True, lengths=[5, 3], average=True,
                         float_mask=float_mask(gen, 3, 5, [(0, 4), (1, 1), (2, 0)])),
        mha_options_case("average_causal_e12_h4", gen, 2, 6, 6, 12, 4, lengths=[6, 4], bool_mask=causal(6, 6),
                         average=True),
    ]
    write_json(os.path.join(OUT, "mha_options.json"), {"generator": "tests/reference/generate_fixtures.py",
                                                       "torch": torch.__version__, "cases": cases})


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
    mha_options()


if __name__ == "__main__":
    main()
