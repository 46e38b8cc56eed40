#!/usr/bin/python3
"""Golden zero and mean ablation of heads and MLPs (issue 29), with PyTorch forward hooks.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_ablation_fixtures.py   (~10 s)
Output (committed): tests/reference/fixtures/ablation.json, read by tests/core/test_ablation_ranking.cpp
and tests/wasm/ablation-ranking.test.ts.

Definitions (docs/heads.md, "Ablation"), as TransformerLens's hook_z / hook_mlp_out:
  a head's output is its context z (S, d_h): its attention weights times V, its slice of the merged
  heads that the output projection reads (the input of c_proj / attention.output.dense / o_proj);
  an MLP's output is what the MLP module returns (S, E), before any post-norm (Gemma 3's
  post_feedforward_layernorm, BERT's LayerNorm(x + dense(h))) and the residual add.
  zero ablation: it becomes 0.  mean ablation: position s of every sequence gets the mean over the
  N reference sequences (`meanOver`, each S long) of that output at position s.

Hooks (all on a float64 copy of the module):
  GPT-2    forward pre-hook on h[l].attn.c_proj (merged heads), forward hook on h[l].mlp
  BERT     forward pre-hook on encoder.layer[l].attention.output.dense, forward hook on
           encoder.layer[l].output.dense (BertOutput's dense, before its dropout, add and LayerNorm)
  hub      (hf_modern.HfCausalLM: Llama, Qwen 2 / 3, Mistral, SmolLM2, Gemma 3) forward pre-hook on
           model.layers[l].self_attn.o_proj, forward hook on model.layers[l].mlp
  toy      (the shipped checkpoints, models.SingleStack = nn.TransformerEncoderLayer) nn.MultiheadAttention
           never calls its out_proj module, so a forward hook on layers[l].self_attn recomputes z from
           its input with the module's own in_proj / out_proj (asserting the recomputed output equals
           the module's to 1e-12) and returns the output of the ablated z; forward hook on
           layers[l].linear2 (the MLP's output; the layer runs in train mode with dropout 0, so
           PyTorch's fused fast path is off).

Per case: `ids` (S), `meanOver` (N, S) seeded random ids, a prediction (`position`, `token`,
`against`); for zero and mean: `combinedLogits`, the logits at `position` (V) with the heads and
MLPs of `combined` ablated together; `ranking`, the clean probability of `token` at `position` and logit(token) - logit(against)
(or logit(token) when against is -1), and each head's and MLP's probability and logit difference
when it alone is ablated.
"""
import copy
import json
import os

import torch

import hf_models
import hf_modern
import models
import safetensors_io
from common import OUT

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = 20261129


class Site:
    """Where a model's heads and MLPs are hooked."""

    def __init__(self, model, kind):
        self.model, self.kind = model, kind
        if kind == "gpt2":
            blocks = model.h
            self.heads = model.config["n_head"]
            self.z_sites = [b.attn.c_proj for b in blocks]
            self.mlp_sites = [b.mlp for b in blocks]
        elif kind == "bert":
            layers = model.bert.encoder.layer
            self.heads = model.config["num_attention_heads"]
            self.z_sites = [layer.attention.output.dense for layer in layers]
            self.mlp_sites = [layer.output.dense for layer in layers]
        elif kind == "hub":
            layers = model.model.layers
            self.heads = model.p["h"]
            self.z_sites = [layer.self_attn.o_proj for layer in layers]
            self.mlp_sites = [layer.mlp for layer in layers]
        else:  # toy: nn.TransformerEncoderLayer
            self.heads = model.spec["heads"]
            self.z_sites = [layer.self_attn for layer in model.layers]
            self.mlp_sites = [layer.linear2 for layer in model.layers]
        self.layers = len(self.z_sites)

    def logits(self, ids):
        """(B, S, V) float64 logits of ids (B, S)."""
        m = self.model
        if self.kind == "gpt2":
            return m(ids)["logits"]
        if self.kind == "bert":
            return m(ids, torch.ones_like(ids), torch.zeros_like(ids))["logits"]
        if self.kind == "hub":
            return m(ids, torch.ones_like(ids))["logits"]
        return m(ids, [ids.shape[1]] * ids.shape[0])[1]


def toy_z(mha, x, causal):
    """z (B, S, H, d) of nn.MultiheadAttention(x, x, x) (batch_first), recomputed from its weights."""
    b, s, e = x.shape
    h = mha.num_heads
    d = e // h
    q, k, v = (x @ mha.in_proj_weight.T + mha.in_proj_bias).chunk(3, dim=-1)
    q, k, v = (t.reshape(b, s, h, d).transpose(1, 2) for t in (q, k, v))
    scores = q @ k.transpose(2, 3) / d ** 0.5
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(s, s, dtype=torch.bool), 1), float("-inf"))
    return (torch.softmax(scores, -1) @ v).transpose(1, 2)  # (B, S, H, d)


def run(site, ids, heads=(), mlps=(), means=None, keep=None):
    """Logits (B, S, V) with `heads` [(layer, head)] and `mlps` [layer] ablated: zero, or the
    per-position means {"z": [per layer (S, H, d)], "mlp": [per layer (S, E)]}. With keep = {"z": [],
    "mlp": []}: each layer's z (B, S, H, d) and MLP output (B, S, E) of this run are appended."""
    hooks = []
    for layer, module in enumerate(site.z_sites):
        ablated = [h for (l, h) in heads if l == layer]

        def edit(z, layer=layer, ablated=ablated):  # z: (B, S, H, d)
            if keep is not None:
                keep["z"].append(z.clone())
            z = z.clone()
            for h in ablated:
                z[:, :, h] = 0 if means is None else means["z"][layer][:, h]
            return z

        if site.kind == "toy":
            causal = site.model.spec["causal"]

            def hook(mha, args, out, edit=edit, causal=causal):
                z = toy_z(mha, args[0], causal)
                own = z.reshape(*z.shape[:2], -1) @ mha.out_proj.weight.T + mha.out_proj.bias
                assert torch.allclose(own, out[0], rtol=0, atol=1e-12), (own - out[0]).abs().max()
                z = edit(z)
                return (z.reshape(*z.shape[:2], -1) @ mha.out_proj.weight.T + mha.out_proj.bias, out[1])

            hooks.append(module.register_forward_hook(hook))
        else:
            def pre_hook(_m, args, edit=edit):
                merged = args[0]  # (B, S, H d)
                z = edit(merged.reshape(*merged.shape[:2], site.heads, -1))
                return (z.reshape(merged.shape),) + tuple(args[1:])

            hooks.append(module.register_forward_pre_hook(pre_hook))
    for layer, module in enumerate(site.mlp_sites):
        def mlp_hook(_m, _args, out, layer=layer):
            if keep is not None:
                keep["mlp"].append(out.clone())
            if layer not in mlps:
                return out
            return torch.zeros_like(out) if means is None else means["mlp"][layer].expand_as(out).clone()

        hooks.append(module.register_forward_hook(mlp_hook))
    try:
        with torch.no_grad():
            return site.logits(ids)
    finally:
        for h in hooks:
            h.remove()


def means_of(site, mean_over):
    keep = {"z": [], "mlp": []}
    run(site, mean_over, keep=keep)
    return {"z": [z.mean(0) for z in keep["z"]], "mlp": [m.mean(0) for m in keep["mlp"]]}


def short(x):
    """10 significant digits: ample for a 1e-4 relative check, and a smaller file."""
    return float("%.10g" % x)


def read_out(logits, position, token, against):
    row = logits[0, position]
    diff = row[token] - (row[against] if against >= 0 else 0)
    return short(torch.softmax(row, -1)[token]), short(diff)


def case_of(name, source, site, vocab, seq, position, token, against, combined, gen):
    ids = torch.randint(0, vocab, (1, seq), generator=gen)
    mean_over = torch.randint(0, vocab, (3, seq), generator=gen)
    out = {"name": name, "source": source, "ids": ids[0].tolist(), "meanOver": mean_over.tolist(),
           "position": position, "token": token, "against": against,
           "combined": {"heads": [list(h) for h in combined[0]], "mlps": list(combined[1])}}
    for mode in ("zero", "mean"):
        means = means_of(site, mean_over) if mode == "mean" else None
        base = read_out(run(site, ids), position, token, against)
        ranking = {"probability": base[0], "logitDiff": base[1], "heads": [], "mlps": []}
        for layer in range(site.layers):
            row = []
            for head in range(site.heads):
                p, d = read_out(run(site, ids, heads=[(layer, head)], means=means), position, token, against)
                row.append({"probability": p, "logitDiff": d})
            ranking["heads"].append(row)
            p, d = read_out(run(site, ids, mlps=[layer], means=means), position, token, against)
            ranking["mlps"].append({"probability": p, "logitDiff": d})
        logits = run(site, ids, heads=combined[0], mlps=combined[1], means=means)[0]
        out[mode] = {"ranking": ranking, "combinedLogits": [short(v) for v in logits[position].tolist()]}
    return out


def gpt2_site(source):
    d = os.path.join(OUT, source)
    config = json.load(open(os.path.join(d, "config.json")))
    model = hf_models.build(config)
    state = {k: v for k, v in safetensors_io.read_typed(os.path.join(d, "model.safetensors"))[0].items()
             if k not in hf_models.buffer_names(model)}
    model.load_state_dict(state, strict=False)
    return Site(copy.deepcopy(model).double().eval(), "gpt2"), config["vocab_size"]


def bert_site(source):
    d = os.path.join(OUT, source)
    config = json.load(open(os.path.join(d, "config.json")))
    model = hf_models.build(config)
    state = {k: v for k, v in safetensors_io.read_typed(os.path.join(d, "model.safetensors"))[0].items()
             if k not in hf_models.buffer_names(model)}
    missing, unexpected = model.load_state_dict(state, strict=False)
    # BertForMaskedLM has no pooler and no next-sentence head, and stores its tied decoder: everything
    # the MLM logits use is loaded.
    assert all(k.startswith(("bert.pooler", "cls.seq_relationship", "bert.embeddings.position_ids")) for k in missing)
    assert all(k.startswith("cls.predictions.decoder") for k in unexpected), unexpected
    assert torch.equal(state["cls.predictions.decoder.weight"], state["bert.embeddings.word_embeddings.weight"])
    return Site(copy.deepcopy(model).double().eval(), "bert"), config["vocab_size"]


def hub_site(source):
    d = os.path.join(OUT, source)
    expected = json.load(open(os.path.join(d, "expected.json")))
    model = hf_modern.HfCausalLM(expected["reference_config"])
    model.load_state_dict(safetensors_io.read(os.path.join(d, "model.safetensors"))[0], strict=True)
    return Site(copy.deepcopy(model).double().eval(), "hub"), model.p["vocab"]


def toy_site(source):
    tensors, meta = safetensors_io.read(os.path.join(ROOT, "web", "public", "checkpoints", source + ".safetensors"))
    model = models.build(json.loads(meta["spec"]))
    model.load_state_dict(tensors, strict=True)
    # train mode with dropout 0: the same numbers, and not PyTorch's fused encoder fast path
    return Site(copy.deepcopy(model).double().train(), "toy"), model.spec["vocabSize"]


CASES = [
    # (name, source, loader, seq, position, token, against, (heads, mlps) ablated together)
    ("gpt2-tiny", "pretrained/gpt2-tiny", gpt2_site, 8, 6, 9, 300, ([(0, 1), (1, 0)], [0])),
    ("bert-tiny-mlm", "pretrained/bert-tiny-mlm", bert_site, 7, 3, 12, 40, ([(0, 0), (1, 1)], [1])),
    ("llama-tiny", "hub/llama-tiny", hub_site, 7, 6, 5, -1, ([(0, 2), (1, 3)], [1])),
    ("qwen2-tiny", "hub/qwen2-tiny", hub_site, 6, 4, 17, 3, ([(0, 0), (1, 2)], [0])),
    ("qwen3-tiny-bf16", "hub/qwen3-tiny-bf16", hub_site, 6, 5, 100, 7, ([(0, 1), (1, 1)], [1])),
    ("mistral-tiny", "hub/mistral-tiny", hub_site, 7, 6, 8, 9, ([(0, 3), (1, 0)], [0])),
    ("smollm2-tiny-bf16", "hub/smollm2-tiny-bf16", hub_site, 6, 5, 2, -1, ([(1, 0)], [0, 1])),
    ("gemma3-text-tiny", "hub/gemma3-text-tiny", hub_site, 7, 6, 30, 31, ([(0, 0), (1, 1)], [1])),
    ("sort", "sort", toy_site, 9, 8, 3, 4, ([(1, 0), (1, 2)], [0])),
    ("induction", "induction", toy_site, 10, 8, 3, -1, ([(0, 0), (1, 0)], [1])),
]


def main():
    gen = torch.Generator().manual_seed(SEED)
    cases = []
    for name, source, loader, seq, position, token, against, combined in CASES:
        site, vocab = loader(source)
        cases.append(case_of(name, source, site, vocab, seq, position, token, against, combined, gen))
        print(name, "clean p =", cases[-1]["zero"]["ranking"]["probability"])
    path = os.path.join(OUT, "ablation.json")
    with open(path, "w") as f:
        json.dump({"generator": "tests/reference/generate_ablation_fixtures.py", "torch": torch.__version__,
                   "cases": cases}, f)
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
