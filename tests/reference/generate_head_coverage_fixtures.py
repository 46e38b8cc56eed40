#!/usr/bin/python3
"""The read-only head tools on more models (issue 29's coverage): BERT, the hub families, the toy models.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_head_coverage_fixtures.py   (~3 s)
Output (committed): tests/reference/fixtures/heads-coverage.json, read by
tests/core/test_head_coverage.cpp and tests/wasm/head-coverage.test.ts.

generate_head_fixtures.py checks the tools on gpt2-tiny and the Llama and Qwen 2 modern fixtures;
this script runs the same definitions (docs/heads.md) on the models the engine also loads:
bert-tiny-mlm (hf_models.BertReference), six hub families (hf_modern.HfCausalLM on each
fixtures/hub/<dir>/expected.json's reference_config) and the shipped sort, reverse and induction
checkpoints (models.SingleStack), loaded as generate_ablation_fixtures.py loads them.

  lens: forward hooks on each layer keep its output; each goes through the end of the model's own
        forward: GPT-2's ln_f and tied unembedding, BERT's MLM head (BertLMPredictionHead: dense,
        GELU, LayerNorm, the tied decoder and its bias; BERT has no final norm, its layers end in a
        LayerNorm), the hub models' final RMSNorm and unembedding, the toy models' final LayerNorm and
        head; softmax; the top 3 ids and probabilities per layer and position, the final prediction
        and its probability after each layer (asserting the last layer gives the model's own output).
  headScores: the head detectors (generate_head_fixtures.scores: TransformerLens's 'mul' measure) on the
        engine's repeated random tokens (seed 7, length 5, batch 3).
  rollout: the float64 attention weights per layer (the toy models' recomputed from
        nn.MultiheadAttention's weights, asserting the module's own output), averaged over heads,
        R = prod (0.5 I + 0.5 A_l).
  attribution: generate_head_fixtures.attribution_of (pre-hooks on o_proj, hooks on the MLPs, the final
        norm's frozen scale) on the pre-norm hub families (not Gemma 3: sandwich norms; not BERT: post-LN),
        and toy_attribution's same arithmetic on the pre-LN toy models (each head's output from its
        recomputed context z and its columns of out_proj.weight).
"""
import copy
import json
import os

import torch

import generate_ablation_fixtures as ga
import generate_head_fixtures as gh
from common import OUT

TOP_K = 3
SCORES = {"seed": 7, "length": 5, "batch": 3}  # the detectors' repeated random tokens (S = 10)
CASES = [
    # (name, source, loader, ids, attribution case or None)
    ("bert-tiny-mlm", "pretrained/bert-tiny-mlm", ga.bert_site, [2, 40, 13, 7, 300, 12, 3], None),
    ("llama-tiny", "hub/llama-tiny", ga.hub_site, [5, 300, 17, 9, 300, 17, 44],
     {"position": 5, "token": 9, "against": -1}),
    ("qwen2-tiny", "hub/qwen2-tiny", ga.hub_site, [1, 4, 7, 2, 4, 7], {"position": 4, "token": 2, "against": 3}),
    ("qwen3-tiny-bf16", "hub/qwen3-tiny-bf16", ga.hub_site, [8, 100, 7, 6, 100], {"position": 4, "token": 7,
                                                                                  "against": -1}),
    ("mistral-tiny", "hub/mistral-tiny", ga.hub_site, [3, 0, 5, 3, 0, 5, 11], {"position": 6, "token": 3,
                                                                              "against": 5}),
    ("smollm2-tiny-bf16", "hub/smollm2-tiny-bf16", ga.hub_site, [9, 8, 7, 9, 8], {"position": 3, "token": 7,
                                                                                  "against": -1}),
    ("gemma3-text-tiny", "hub/gemma3-text-tiny", ga.hub_site, [2, 30, 31, 40, 30, 31], None),
    ("sort", "sort", ga.toy_site, [7, 2, 9, 4, 3, 8, 5, 6, 10, 2, 3, 4], None),
    ("reverse", "reverse", ga.toy_site, [7, 2, 9, 4, 3, 8, 5, 6, 10, 6, 5], None),
    ("induction", "induction", ga.toy_site, [3, 5, 7, 2, 6, 3, 5, 7, 2, 6], None),
]


def blocks(site):
    m = site.model
    return {"gpt2": lambda: m.h, "bert": lambda: m.bert.encoder.layer, "hub": lambda: m.model.layers,
            "toy": lambda: m.layers}[site.kind]()


def unembed(site, h):
    """(S, E) layer output -> (S, V) logits through the end of the model's own forward."""
    m = site.model
    if site.kind == "gpt2":
        return m.ln_f(h) @ (m.wte.weight if m.tied else m.lm_head.weight).T
    if site.kind == "bert":
        return m.cls.predictions(h, m.bert.embeddings.word_embeddings.weight)
    if site.kind == "hub":
        return torch.nn.functional.linear(m.model.norm(h), m.model.embed_tokens.weight if m.p["tied"]
                                          else m.lm_head.weight)
    return m.logits(m.norm(h) if m.spec["finalNorm"] else h)


def lens(site, ids):
    outputs = []
    hooks = [b.register_forward_hook(lambda _m, _i, out: outputs.append(out[0] if isinstance(out, tuple) else out))
             for b in blocks(site)]
    x = torch.tensor([ids])
    try:
        with torch.no_grad():
            final = site.logits(x)[0]
            probs = torch.stack([torch.softmax(unembed(site, o[0]), -1) for o in outputs])  # (L, S, V)
    finally:
        for h in hooks:
            h.remove()
    assert torch.allclose(probs[-1], torch.softmax(final, -1), rtol=0, atol=1e-12)
    top = probs.topk(TOP_K, dim=-1)
    prediction = probs[-1].argmax(-1)
    return {"topK": TOP_K, "topIds": top.indices.tolist(), "topProbs": top.values.tolist(),
            "prediction": prediction.tolist(),
            "predictionProbs": probs.gather(2, prediction[None, :, None].expand(len(outputs), -1, 1))[..., 0].tolist()}


def attentions(site, ids):
    """Per layer (H, S, S) float64 weights of one sequence."""
    return [a[0] for a in batch_attentions(site, [ids])]


def batch_attentions(site, rows):
    """Per layer (B, H, S, S) float64 weights of equal-length sequences."""
    x = torch.tensor(rows)
    m = site.model
    if site.kind == "gpt2":
        return m(x)["attentions"]
    if site.kind == "bert":
        return m(x, torch.ones_like(x), torch.zeros_like(x))["attentions"]
    if site.kind == "hub":
        return m(x, torch.ones_like(x))["attentions"]
    weights = []

    def hook(mha, args, out):
        q_in = args[0]
        b, s, e = q_in.shape
        h = mha.num_heads
        d = e // h
        q, k, v = (q_in @ mha.in_proj_weight.T + mha.in_proj_bias).chunk(3, dim=-1)
        q, k, v = (t.reshape(b, s, h, d).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(2, 3) / d ** 0.5
        if m.spec["causal"]:
            scores = scores.masked_fill(torch.triu(torch.ones(s, s, dtype=torch.bool), 1), float("-inf"))
        a = torch.softmax(scores, -1)
        own = (a @ v).transpose(1, 2).reshape(b, s, e) @ mha.out_proj.weight.T + mha.out_proj.bias
        assert torch.allclose(own, out[0], rtol=0, atol=1e-12)
        weights.append(a)

    hooks = [layer.self_attn.register_forward_hook(hook) for layer in m.layers]
    try:
        with torch.no_grad():
            site.logits(x)
    finally:
        for h in hooks:
            h.remove()
    return weights


def rollout(site, ids):
    s = len(ids)
    r = torch.eye(s, dtype=torch.float64)
    for a in attentions(site, ids):
        r = (0.5 * torch.eye(s, dtype=torch.float64) + 0.5 * a.mean(0)) @ r
    return r.tolist()


def toy_attribution(site, ids, case):
    """Direct logit attribution of a pre-LN toy model (nn.TransformerEncoderLayer, norm_first): the same
    arithmetic as generate_head_fixtures.attribution_of, each head's output from its context z
    (recomputed from nn.MultiheadAttention's weights, checked against its output) times its columns of
    out_proj.weight; the MLP's output is linear2's; the final LayerNorm's scale frozen at the full run."""
    m = site.model
    assert m.spec["norm"] == "pre" and m.spec["finalNorm"] and m.spec["head"] == "linear"
    kept = {"z": [], "mlp": []}

    def z_hook(mha, args, out):
        z = ga.toy_z(mha, args[0], m.spec["causal"])
        own = z.reshape(*z.shape[:2], -1) @ mha.out_proj.weight.T + mha.out_proj.bias
        assert torch.allclose(own, out[0], rtol=0, atol=1e-12)
        kept["z"].append(z)

    hooks = [m.layers[0].register_forward_pre_hook(lambda _m, args: kept.__setitem__("embed", args[0])),
             m.norm.register_forward_pre_hook(lambda _m, args: kept.__setitem__("resid", args[0]))]
    hooks += [layer.self_attn.register_forward_hook(z_hook) for layer in m.layers]
    hooks += [layer.linear2.register_forward_hook(lambda _m, _i, out: kept["mlp"].append(out)) for layer in m.layers]
    x = torch.tensor([ids])
    try:
        with torch.no_grad():
            logits = site.logits(x)[0, case["position"]]
    finally:
        for h in hooks:
            h.remove()
    pos, token, against = case["position"], case["token"], case["against"]
    w_u, b_u = m.head.weight, m.head.bias
    direction = w_u[token] - (w_u[against] if against >= 0 else 0)
    resid = kept["resid"][0, pos]
    scale = torch.sqrt(resid.var(unbiased=False) + m.norm.eps)
    read = lambda c: ((c - c.mean()) / scale * m.norm.weight) @ direction  # noqa: E731
    heads, biases = [], m.norm.bias @ direction + b_u[token] - (b_u[against] if against >= 0 else 0)
    for layer, z in zip(m.layers, kept["z"]):
        w_o = layer.self_attn.out_proj.weight  # (E, H d)
        d = z.shape[-1]
        heads.append([float(read(z[0, pos, h] @ w_o[:, h * d:(h + 1) * d].T)) for h in range(z.shape[2])])
        biases = biases + read(layer.self_attn.out_proj.bias)
    out = {**case, "ids": ids, "embed": float(read(kept["embed"][0, pos])), "heads": heads,
           "mlps": [float(read(o[0, pos])) for o in kept["mlp"]], "biases": float(biases),
           "logit": float(logits[token] - (logits[against] if against >= 0 else 0))}
    total = out["embed"] + sum(map(sum, heads)) + sum(out["mlps"]) + out["biases"]
    assert abs(total - out["logit"]) < 1e-9, (total, out["logit"])  # the parts add up
    return out


TOY_DLA = {"sort": {"position": 11, "token": 5, "against": 6}, "reverse": {"position": 10, "token": 8, "against": -1},
           "induction": {"position": 6, "token": 7, "against": -1}}


def main():
    cases = []
    for name, source, loader, ids, dla in CASES:
        site, vocab = loader(source)
        case = {"name": name, "source": source, "ids": ids, "lens": lens(site, ids), "rollout": rollout(site, ids)}
        rows = gh.repeated_random_tokens(SCORES["seed"], SCORES["length"], SCORES["batch"], vocab)
        weights = batch_attentions(site, rows)
        case["headScores"] = {**SCORES, "scores": {k: gh.scores(weights, rows, k) for k in gh.KINDS}}
        if dla is not None:
            case["attribution"] = gh.attribution_of(site.model, "modern", {"ids": ids, **dla})
        if name in TOY_DLA:
            case["attribution"] = toy_attribution(site, ids, TOY_DLA[name])
        cases.append(case)
        print(name, "final prediction", case["lens"]["prediction"])
    path = os.path.join(OUT, "heads-coverage.json")
    with open(path, "w") as f:
        json.dump({"generator": "tests/reference/generate_head_coverage_fixtures.py", "torch": torch.__version__,
                   "cases": cases}, f)
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
