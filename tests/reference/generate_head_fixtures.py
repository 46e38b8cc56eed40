#!/usr/bin/python3
"""Golden head-detector scores (issue 29) on the tiny reference models.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_head_fixtures.py
Output (committed): tests/reference/fixtures/heads.json, read by tests/core/test_head_scores.cpp.

For each model: the attention weights of a float64 forward of the reference module (per layer
(B, H, S, S): hf_models.Gpt2Reference for GPT-2, hf_modern.HfCausalLM for Llama / Qwen 2, both
loading the committed fixture weights), on repeated random tokens, scored with TransformerLens's
head_detector.py definitions (error_measure 'mul', exclude_bos False, exclude_current_token
False; a list of prompts is the mean of each prompt's score), written from its documentation:
  previous:  P[i, i-1] = 1
  duplicate: P[i, j] = 1 for j < i with token j == token i
  induction: the duplicate pattern shifted one key right: P[i, j] = 1 for 1 <= j <= i with
             token j-1 == token i
  score = sum(A * P) / sum(A) per head and prompt, then the mean over prompts.
The tokens are the engine's: SplitMix64(seed).next() % vocab, `length` draws per sequence row
by row, each row followed by itself (S = 2 length).

Logit lens (docs/heads.md): forward hooks on each block (GPT2Block / the HF decoder layer)
keep its output, the residual stream (S, E); each goes through the final norm (ln_f /
model.norm) and the unembedding of the same float64 module: softmax over the vocabulary per
layer and position, written as the top TOP_K ids and probabilities, the final prediction
(the last layer's argmax) and its probability after each layer.

Direct logit attribution (docs/heads.md): forward pre-hooks keep the first block's input (the
embedding), each attention's merged heads (the input of c_proj / o_proj) and the final norm's
input (the full residual stream); forward hooks keep each MLP's output. Each head's output is its
slice of the merged heads times its rows (Conv1D) / columns (nn.Linear) of the output projection.
Each part c goes through the final norm with the full run's scale frozen, as TransformerLens's
apply_ln_to_stack: LayerNorm (c - mean(c)) / sqrt(var(resid) + eps) * gamma, RMSNorm
c / sqrt(mean(resid^2) + eps) * weight, then . W_U[token] - W_U[against]. The output projections'
biases (scaled the same way), beta . (W_U[token] - W_U[against]) and the head's bias make "biases".

Attention rollout (Abnar and Zuidema): the float64 attention weights of each layer (B = 1),
averaged over heads, A' = 0.5 I + 0.5 A, R = A'_{L-1} ... A'_0.
"""
import copy
import json
import os

import torch

import hf_models
import hf_modern
import safetensors_io
from common import OUT

MASK64 = (1 << 64) - 1
KINDS = ("previous", "duplicate", "induction")


def splitmix64(seed):
    state = seed & MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def repeated_random_tokens(seed, length, batch, vocab):
    rng = splitmix64(seed)
    rows = []
    for _ in range(batch):
        half = [next(rng) % vocab for _ in range(length)]
        rows.append(half + half)
    return rows


def pattern(kind, ids):
    s = len(ids)
    t = torch.tensor(ids)
    if kind == "previous":
        p = torch.zeros(s, s, dtype=torch.float64)
        p[1:, :-1] = torch.eye(s - 1, dtype=torch.float64)
        return p
    dup = (t[:, None] == t[None, :]).double()
    dup.fill_diagonal_(0)
    dup = torch.tril(dup)
    if kind == "duplicate":
        return dup
    shifted = torch.zeros_like(dup)
    shifted[:, 1:] = dup[:, :-1]
    return torch.tril(shifted)


def scores(attentions, rows, kind):
    """attentions: per layer (B, H, S, S) -> (L, H) nested lists."""
    out = []
    for a in attentions:
        per_prompt = []
        for b, ids in enumerate(rows):
            p = pattern(kind, ids)
            w = a[b]  # (H, S, S)
            per_prompt.append((w * p).sum(dim=(1, 2)) / w.sum(dim=(1, 2)))
        out.append(torch.stack(per_prompt).mean(0).tolist())
    return out


def gpt2_attentions(rows):
    d = os.path.join(OUT, "pretrained", "gpt2-tiny")
    config = json.load(open(os.path.join(d, "config.json")))
    model = hf_models.build(config)
    state = {k: v for k, v in safetensors_io.read_typed(os.path.join(d, "model.safetensors"))[0].items()
             if k not in hf_models.buffer_names(model)}
    model.load_state_dict(state, strict=False)
    return hf_models.run(model, torch.tensor(rows))["attentions"], config["vocab_size"]


def modern_attentions(name, rows):
    f = json.load(open(os.path.join(OUT, "modern", name + ".json")))
    model = hf_modern.HfCausalLM(f["config"])
    model.load_state_dict(safetensors_io.read(os.path.join(OUT, "modern", name + ".hf.safetensors"))[0])
    ids = torch.tensor(rows)
    return hf_modern.run(model.eval(), ids, torch.ones_like(ids))["attentions"]


TOP_K = 3
LENS_IDS = {"gpt2-tiny": [5, 300, 17, 9, 300, 17, 44, 2], "llama": [1, 4, 7, 2, 4, 7, 10], "qwen2": [3, 0, 5, 3, 0]}


def lens_of(model, blocks, final_norm, unembed, ids):
    """{topIds, topProbs: (L, S, K), prediction: (S), predictionProbs: (L, S)}."""
    md = copy.deepcopy(model).double().eval()
    outputs = []
    hooks = [b.register_forward_hook(lambda _m, _i, out: outputs.append(out[0] if isinstance(out, tuple) else out))
             for b in blocks(md)]
    x = torch.tensor([ids])
    with torch.no_grad():
        final = md(x, torch.ones_like(x))["logits"][0]
        probs = torch.stack([torch.softmax(unembed(md, final_norm(md)(o[0])), -1) for o in outputs])  # (L, S, V)
    for h in hooks:
        h.remove()
    assert torch.allclose(probs[-1], torch.softmax(final, -1))  # the last layer is the model's own output
    top = probs.topk(TOP_K, dim=-1)
    prediction = probs[-1].argmax(-1)
    return {"ids": ids, "topK": TOP_K, "topIds": top.indices.tolist(), "topProbs": top.values.tolist(),
            "prediction": prediction.tolist(),
            "predictionProbs": probs.gather(2, prediction[None, :, None].expand(len(outputs), -1, 1))[..., 0].tolist()}


def gpt2_model():
    d = os.path.join(OUT, "pretrained", "gpt2-tiny")
    config = json.load(open(os.path.join(d, "config.json")))
    model = hf_models.build(config)
    state = {k: v for k, v in safetensors_io.read_typed(os.path.join(d, "model.safetensors"))[0].items()
             if k not in hf_models.buffer_names(model)}
    model.load_state_dict(state, strict=False)
    return model


def modern_model(name):
    f = json.load(open(os.path.join(OUT, "modern", name + ".json")))
    model = hf_modern.HfCausalLM(f["config"])
    model.load_state_dict(safetensors_io.read(os.path.join(OUT, "modern", name + ".hf.safetensors"))[0])
    return model


def lens_case(name):
    if name == "gpt2-tiny":
        return lens_of(gpt2_model(), lambda m: m.h, lambda m: m.ln_f,
                       lambda m, h: h @ (m.wte.weight if m.tied else m.lm_head.weight).T, LENS_IDS[name])
    return lens_of(modern_model(name), lambda m: m.model.layers, lambda m: m.model.norm,
                   lambda m, h: h @ (m.model.embed_tokens.weight if m.p["tied"] else m.lm_head.weight).T,
                   LENS_IDS[name])


DLA = {"gpt2-tiny": {"ids": [5, 300, 17, 9, 300, 17, 44, 2], "position": 6, "token": 9, "against": 300},
       "llama": {"ids": [1, 4, 7, 2, 4, 7, 10], "position": 5, "token": 2, "against": -1},
       "qwen2": {"ids": [3, 0, 5, 3, 0], "position": 4, "token": 5, "against": 1}}


def attribution_of(model, kind, case):
    md = copy.deepcopy(model).double().eval()
    gpt2 = kind == "gpt2"
    blocks = md.h if gpt2 else md.model.layers
    final_norm = md.ln_f if gpt2 else md.model.norm
    projections = [b.attn.c_proj if gpt2 else b.self_attn.o_proj for b in blocks]
    kept = {"merged": [], "mlp": []}
    hooks = [blocks[0].register_forward_pre_hook(lambda _m, args: kept.__setitem__("embed", args[0])),
             final_norm.register_forward_pre_hook(lambda _m, args: kept.__setitem__("resid", args[0]))]
    hooks += [p.register_forward_pre_hook(lambda _m, args: kept["merged"].append(args[0])) for p in projections]
    hooks += [b.mlp.register_forward_hook(lambda _m, _i, out: kept["mlp"].append(out)) for b in blocks]
    ids = torch.tensor([case["ids"]])
    with torch.no_grad():
        logits = md(ids, torch.ones_like(ids))["logits"][0, case["position"]]
    for h in hooks:
        h.remove()
    pos = case["position"]
    heads = (md.config["n_head"] if gpt2 else md.p["h"])
    parts = {"embed": kept["embed"][0, pos]}
    head_parts, biases = [], 0
    for proj, merged in zip(projections, kept["merged"]):
        m = merged[0, pos]
        d = m.shape[0] // heads
        w = proj.weight if gpt2 else proj.weight.T  # (H d_h, E) either way
        head_parts.append([m[h * d:(h + 1) * d] @ w[h * d:(h + 1) * d] for h in range(heads)])
        if proj.bias is not None:
            biases = biases + proj.bias
    resid = kept["resid"][0, pos]
    unembed = md.wte.weight if gpt2 else (md.model.embed_tokens.weight if md.p["tied"] else md.lm_head.weight)
    direction = unembed[case["token"]] - (unembed[case["against"]] if case["against"] >= 0 else 0)
    if gpt2:
        scale = torch.sqrt(resid.var(unbiased=False) + final_norm.eps)
        gain, beta = final_norm.weight, final_norm.bias
        read = lambda c: ((c - c.mean()) / scale * gain) @ direction
    else:
        scale = torch.sqrt(resid.pow(2).mean() + final_norm.eps)
        gain = final_norm.weight + 1 if final_norm.offset else final_norm.weight
        beta = None
        read = lambda c: (c / scale * gain) @ direction
    bias_total = (read(biases) if torch.is_tensor(biases) else 0) + (beta @ direction if beta is not None else 0)
    total_logit = logits[case["token"]] - (logits[case["against"]] if case["against"] >= 0 else 0)
    out = {**case, "embed": float(read(parts["embed"])),
           "heads": [[float(read(c)) for c in layer] for layer in head_parts],
           "mlps": [float(read(o[0, pos])) for o in kept["mlp"]],
           "biases": float(bias_total), "logit": float(total_logit)}
    total = out["embed"] + sum(map(sum, out["heads"])) + sum(out["mlps"]) + out["biases"]
    assert abs(total - out["logit"]) < 1e-9, (total, out["logit"])  # the parts add up
    return out


def attribution_case(name):
    if name == "gpt2-tiny":
        return attribution_of(gpt2_model(), "gpt2", DLA[name])
    return attribution_of(modern_model(name), "modern", DLA[name])


def rollout_case(name):
    ids = torch.tensor([LENS_IDS[name]])
    if name == "gpt2-tiny":
        attentions = hf_models.run(gpt2_model(), ids)["attentions"]
    else:
        attentions = hf_modern.run(modern_model(name).eval(), ids, torch.ones_like(ids))["attentions"]
    s = ids.shape[1]
    r = torch.eye(s, dtype=torch.float64)
    for a in attentions:
        r = (0.5 * torch.eye(s, dtype=torch.float64) + 0.5 * a[0].mean(0)) @ r
    return {"ids": LENS_IDS[name], "rollout": r.tolist()}


CASES = [
    # (name, source, vocab, seed, length, batch)
    ("gpt2-tiny", "pretrained/gpt2-tiny", 557, 3, 8, 3),
    ("llama", "modern/llama", 11, 5, 8, 2),
    ("qwen2", "modern/qwen2", None, 9, 6, 2),
]


def main():
    cases = []
    for name, source, vocab, seed, length, batch in CASES:
        if name == "gpt2-tiny":
            config = json.load(open(os.path.join(OUT, "pretrained", "gpt2-tiny", "config.json")))
            vocab = config["vocab_size"]
            rows = repeated_random_tokens(seed, length, batch, vocab)
            attentions, _ = gpt2_attentions(rows)
        else:
            vocab = json.load(open(os.path.join(OUT, "modern", name + ".json")))["config"]["vocab_size"]
            rows = repeated_random_tokens(seed, length, batch, vocab)
            attentions = modern_attentions(name, rows)
        cases.append({"name": name, "source": source, "seed": seed, "length": length, "batch": batch,
                      "ids": rows, "scores": {k: scores(attentions, rows, k) for k in KINDS},
                      "lens": lens_case(name), "attribution": attribution_case(name),
                      "rollout": rollout_case(name)})
    path = os.path.join(OUT, "heads.json")
    with open(path, "w") as f:
        json.dump({"generator": "tests/reference/generate_head_fixtures.py", "torch": torch.__version__,
                   "measure": "mul", "excludeBos": False, "excludeCurrentToken": False, "cases": cases}, f, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    main()
