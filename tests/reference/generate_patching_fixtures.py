#!/usr/bin/python3
"""Golden activation patching and attribution patching (issue 29) on the tiny reference models.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_patching_fixtures.py
Output (committed): tests/reference/fixtures/patching.json, read by tests/core/test_patching.cpp
and tests/wasm/patching.test.ts.

Models (float64 copies of the float32 weights the engine loads):
  gpt2-tiny  hf_models.Gpt2Reference on fixtures/pretrained/gpt2-tiny (GPT-2's layout)
  bert-tiny  hf_models.BertReference on fixtures/pretrained/bert-tiny (post-LN encoder, token types
             0, the MLM head's transform and tied decoder)
  llama      hf_modern.HfCausalLM on fixtures/modern/llama (RMSNorm, RoPE, grouped K/V heads)
  gemma3     hf_modern.HfCausalLM on fixtures/modern/gemma3 (sandwich norms, sliding window)
  post-encoder  models.SingleStack on fixtures/models/post_relu_sinusoidal (post-LN, no causal
             mask: an encoder with a linear head)
  induction  models.SingleStack (nn.TransformerEncoderLayer) on the shipped, trained
             web/public/checkpoints/induction.safetensors; each layer's nn.MultiheadAttention
             is run by HookedAttention below, which computes the same attention with plain ops
             (checked: the logits equal the unmodified module's) so that its output projection
             is a module a hook can reach.

Metric: d = logit[good] - logit[bad] at `position`. Share recovered: (d_patched - d_corrupted) /
(d_clean - d_corrupted).

Exact patching, with forward pre-hooks:
  resid (L, S): a pre-hook on block l replaces row p of its input (the residual stream entering
                layer l) of the corrupted run with the clean run's row.
  heads (L, H): a pre-hook on layer l's output projection (c_proj / o_proj / out_proj) replaces
                columns [h d_h, (h+1) d_h) of its input (the merged heads' contexts, every
                position) with the clean run's.
Attribution patching (autograd): the corrupted run with retain_grad() on the same two inputs,
d.backward(); the estimate is sum((clean - corrupted activation) * grad) over E at (l, p)
(resid) or over every position and the head's d_h columns (heads), divided by
(d_clean - d_corrupted).
"""
import copy
import json
import math
import os

import torch
import torch.nn as nn

import hf_models
import hf_modern
import models
import safetensors_io
from common import OUT

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


class HookedAttention(nn.Module):
    """nn.MultiheadAttention's self-attention (batch_first, no dropout) with plain ops, its
    out_proj called as a module."""

    def __init__(self, mha):
        super().__init__()
        self.heads = mha.num_heads
        self.in_proj_weight, self.in_proj_bias, self.out_proj = mha.in_proj_weight, mha.in_proj_bias, mha.out_proj

    def forward(self, q, k, v, attn_mask=None, key_padding_mask=None, need_weights=False, **_):
        b, s, e = q.shape
        d = e // self.heads
        x = nn.functional.linear(q, self.in_proj_weight, self.in_proj_bias)
        split = lambda t: t.reshape(b, s, self.heads, d).transpose(1, 2)  # noqa: E731
        qh, kh, vh = (split(t) for t in x.split(e, dim=2))
        scores = qh @ kh.transpose(2, 3) / math.sqrt(d)
        blocked = torch.zeros(b, 1, s, s, dtype=torch.bool)
        if attn_mask is not None:
            blocked = blocked | attn_mask[None, None]
        if key_padding_mask is not None:
            blocked = blocked | key_padding_mask[:, None, None, :]
        weights = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1)
        merged = (weights @ vh).transpose(1, 2).reshape(b, s, e)
        return self.out_proj(merged), None


def pretrained_case(name):
    d = os.path.join(OUT, "pretrained", name)
    config = json.load(open(os.path.join(d, "config.json")))
    model = hf_models.build(config)
    state = {k: v for k, v in safetensors_io.read_typed(os.path.join(d, "model.safetensors"))[0].items()
             if k not in hf_models.buffer_names(model)}
    model.load_state_dict(state, strict=False)
    md = copy.deepcopy(model).double().eval()
    if config["model_type"] == "bert":  # blocks: BertLayer; its context enters attention.output.dense
        blocks = list(md.bert.encoder.layer)
        return {"md": md, "blocks": blocks, "projections": [b.attention.output.dense for b in blocks],
                "heads": config["num_attention_heads"],
                "logits": lambda ids: md(ids, torch.ones_like(ids), torch.zeros_like(ids))["logits"]}
    return {"md": md, "blocks": list(md.h), "projections": [b.attn.c_proj for b in md.h],
            "heads": config["n_head"], "logits": lambda ids: md(ids, torch.ones_like(ids))["logits"]}


def modern_case(name):
    f = json.load(open(os.path.join(OUT, "modern", name + ".json")))
    model = hf_modern.HfCausalLM(f["config"])
    model.load_state_dict(safetensors_io.read(os.path.join(OUT, "modern", name + ".hf.safetensors"))[0])
    md = copy.deepcopy(model).double().eval()
    return {"md": md, "blocks": list(md.model.layers), "projections": [b.self_attn.o_proj for b in md.model.layers],
            "heads": md.p["h"], "logits": lambda ids: md(ids, torch.ones_like(ids))["logits"]}


def checkpoint_case(name):
    tensors, metadata = safetensors_io.read(os.path.join(ROOT, "web", "public", "checkpoints", name + ".safetensors"))
    return playground_case(json.loads(metadata["spec"]), tensors)


def fixture_model_case(name):
    spec = json.load(open(os.path.join(OUT, "models", name + ".json")))["spec"]
    return playground_case(spec, safetensors_io.read(os.path.join(OUT, "models", name + ".safetensors"))[0])


def playground_case(spec, tensors):
    model = models.build(spec)
    model.load_state_dict(tensors)
    md = copy.deepcopy(model).double().train()  # dropout 0; train mode keeps PyTorch off its fast path
    run = lambda ids: md(ids, [ids.shape[1]])[1]  # noqa: E731
    ids = (torch.arange(spec["maxSeq"]) % spec["vocabSize"])[None]
    want = run(ids)
    for layer in md.layers:
        layer.self_attn = HookedAttention(layer.self_attn)
    assert torch.allclose(run(ids), want, atol=1e-12), "HookedAttention is nn.MultiheadAttention"
    return {"md": md, "blocks": list(md.layers), "projections": [layer.self_attn.out_proj for layer in md.layers],
            "heads": spec["heads"], "logits": run}


def first_input_hook(change):
    """A forward pre-hook that hands the module change(its first input) instead."""
    return lambda _m, args: (change(args[0]),) + tuple(args[1:])


def run(m, ids, position, good, bad, hooks=()):
    """d at position, with the given (module, pre-hook) pairs in place."""
    handles = [module.register_forward_pre_hook(hook) for module, hook in hooks]
    try:
        logits = m["logits"](ids)[0, position]
    finally:
        for h in handles:
            h.remove()
    return logits[good] - logits[bad]


def capture(m, ids, position, good, bad, keep_grad=False):
    """d and each block's input and each projection's input (the corrupted run keeps their grads)."""
    kept = {"resid": [], "merged": []}

    def keep(kind):
        def hook(x):
            if keep_grad:
                x.retain_grad()
            kept[kind].append(x)
            return x
        return first_input_hook(hook)

    hooks = [(b, keep("resid")) for b in m["blocks"]] + [(p, keep("merged")) for p in m["projections"]]
    with torch.set_grad_enabled(keep_grad):
        d = run(m, ids, position, good, bad, hooks)
    return d, kept


def patching(m, case):
    clean, corrupted = torch.tensor([case["clean"]]), torch.tensor([case["corrupted"]])
    s, position, good, bad = clean.shape[1], case["position"], case["good"], case["bad"]
    layers, heads = len(m["blocks"]), m["heads"]
    d_clean, acts = capture(m, clean, position, good, bad)
    d_corrupted, corr = capture(m, corrupted, position, good, bad, keep_grad=True)
    d_corrupted.backward()
    denominator = float(d_clean - d_corrupted)
    assert abs(denominator) > 0.05, denominator  # a metric worth recovering
    share = lambda d: float(d - d_corrupted) / denominator  # noqa: E731

    def replace_row(clean_x, p):
        def change(x):
            x = x.clone()
            x[:, p] = clean_x[:, p]
            return x
        return change

    def replace_head(clean_z, h, d_h):
        def change(z):
            z = z.clone()
            z[..., h * d_h:(h + 1) * d_h] = clean_z[..., h * d_h:(h + 1) * d_h]
            return z
        return change

    with torch.no_grad():
        exact_resid = [[share(run(m, corrupted, position, good, bad,
                                  [(m["blocks"][l], first_input_hook(replace_row(acts["resid"][l], p)))]))
                        for p in range(s)] for l in range(layers)]
        d_h = acts["merged"][0].shape[-1] // heads
        exact_heads = [[share(run(m, corrupted, position, good, bad,
                                  [(m["projections"][l], first_input_hook(replace_head(acts["merged"][l], h, d_h)))]))
                        for h in range(heads)] for l in range(layers)]
        attr_resid = [[float(((acts["resid"][l][0, p] - corr["resid"][l][0, p]) * corr["resid"][l].grad[0, p]).sum())
                       / denominator for p in range(s)] for l in range(layers)]
        attr_heads = [[float(((acts["merged"][l][0, :, h * d_h:(h + 1) * d_h] - corr["merged"][l][0, :, h * d_h:(h + 1) * d_h])
                              * corr["merged"][l].grad[0, :, h * d_h:(h + 1) * d_h]).sum()) / denominator
                       for h in range(heads)] for l in range(layers)]
    return {**case, "cleanDiff": float(d_clean), "corruptedDiff": float(d_corrupted),
            "exact": {"resid": exact_resid, "heads": exact_heads},
            "attribution": {"resid": attr_resid, "heads": attr_heads},
            "correlation": {kind: correlation(exact, attr) for kind, exact, attr in
                            (("resid", exact_resid, attr_resid), ("heads", exact_heads, attr_heads))}}


def correlation(a, b):
    x, y = torch.tensor(a, dtype=torch.float64).flatten(), torch.tensor(b, dtype=torch.float64).flatten()
    x, y = x - x.mean(), y - y.mean()
    return float((x * y).sum() / math.sqrt(float((x * x).sum() * (y * y).sum())))


CASES = [
    # name, source (as tests/core/analysis_fixture.hpp loads it), the two prompts, position, good, bad
    {"name": "gpt2-tiny", "source": "pretrained/gpt2-tiny", "clean": [5, 300, 17, 9, 300, 17, 44, 2],
     "corrupted": [5, 357, 17, 9, 300, 17, 44, 2], "position": 7, "good": 300, "bad": 357},
    {"name": "bert-tiny", "source": "pretrained/bert-tiny", "clean": [2, 100, 200, 300, 400, 500, 3],
     "corrupted": [2, 100, 250, 300, 400, 500, 3], "position": 4, "good": 192, "bad": 301},
    {"name": "llama", "source": "modern/llama", "clean": [1, 4, 7, 2, 4, 7, 10],
     "corrupted": [1, 4, 7, 3, 4, 7, 10], "position": 5, "good": 2, "bad": 3},
    {"name": "gemma3", "source": "modern/gemma3", "clean": [1, 4, 7, 2, 4, 7, 10],
     "corrupted": [1, 4, 7, 3, 4, 7, 10], "position": 4, "good": 2, "bad": 3},
    {"name": "post-encoder", "source": "models/post_relu_sinusoidal", "clean": [3, 7, 1, 9, 4, 2],
     "corrupted": [3, 7, 5, 9, 4, 2], "position": 5, "good": 10, "bad": 11},
    # The trained induction model: the repeat of 8 0 9 3 2 1 7 6 predicts 7 after "... 2 1";
    # the corrupted prompt had 4 there in its first half.
    {"name": "induction", "source": "checkpoint/induction", "clean": [8, 0, 9, 3, 2, 1, 7, 6, 8, 0, 9, 3, 2, 1],
     "corrupted": [8, 0, 9, 3, 2, 1, 4, 6, 8, 0, 9, 3, 2, 1], "position": 13, "good": 7, "bad": 4},
]


def build(case):
    kind, name = case["source"].split("/")
    if kind == "pretrained":
        return pretrained_case(name)
    if kind == "modern":
        return modern_case(name)
    if kind == "models":
        return fixture_model_case(name)
    return checkpoint_case(name)


def main():
    cases = [patching(build(case), case) for case in CASES]
    path = os.path.join(OUT, "patching.json")
    with open(path, "w") as f:
        json.dump({"generator": "tests/reference/generate_patching_fixtures.py", "torch": torch.__version__,
                   "cases": cases}, f, indent=1)
    for c in cases:
        print(c["name"], "clean", round(c["cleanDiff"], 4), "corrupted", round(c["corruptedDiff"], 4),
              "correlation exact/attribution", {k: round(v, 3) for k, v in c["correlation"].items()})
    print("wrote", path)


if __name__ == "__main__":
    main()
