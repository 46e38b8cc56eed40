#!/usr/bin/python3
"""Writes the modern-block fixtures: Llama, Llama 3 (scaled RoPE, tied), Qwen 2, Qwen 3, Gemma 3,
an ALiBi model and a partial-rotary encoder, each forward (layer outputs, attention weights,
hidden, logits), loss, gradients and 10 AdamW steps.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_modern_fixtures.py
Output (committed): tests/reference/fixtures/modern/<case>.safetensors (OUR names and order, the
file the engine loads), <case>.hf.safetensors (the same floats under Hugging Face's names, for
the Hugging Face cases) and <case>.json.

The reference of a Hugging Face case is hf_modern.HfCausalLM (transformers' semantics, HF's
names); its values are mapped onto our names by hf_modern.ours_from_hf (q|k|v and gate|up rows
concatenated). The ALiBi case has no HF class: hf_modern.SpecModel (the contract, written from
the paper) is its reference. Weights, ids and targets are drawn in float32 / int; everything
after that runs on a float64 copy, as in generate_training_fixtures.py (whose loss, targets,
AdamW loop and noise bookkeeping this reuses). See README.md for the keys.
"""
import copy
import math
import os

import torch
import torch.nn.functional as F

import hf_modern as hm
import safetensors_io
from common import OUT, flat, padding_mask, write_json
from generate_training_fixtures import IGNORE, NOISE_GRADIENT, STEPS, adamw, cosine, random_targets, total_norm

MODERN = os.path.join(OUT, "modern")
SEED = 20261125
MAX_SEQ = 16


def llama(**kw):
    c = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_act": "silu",
         "max_position_embeddings": MAX_SEQ, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
         "attention_bias": False, "mlp_bias": False, "tie_word_embeddings": False}
    c.update(kw)
    return c


CASES = [
    dict(name="llama",  # GQA 4 -> 2, untied, no biases, SwiGLU
         config=llama(vocab_size=11, hidden_size=16, intermediate_size=12, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2),
         shape=dict(batch=2, seq=6, lengths=[6, 4]), opt=adamw(1e-2, 0.01)),
    dict(name="llama3_scaled_tied",  # Llama 3.2 / SmolLM2: llama3 RoPE scaling, tied, MQA, head_dim 6
         config=llama(vocab_size=11, hidden_size=12, intermediate_size=14, num_hidden_layers=2,
                      num_attention_heads=3, num_key_value_heads=1, head_dim=6, tie_word_embeddings=True,
                      rope_theta=10000.0, max_position_embeddings=MAX_SEQ,
                      rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                    "high_freq_factor": 4.0, "original_max_position_embeddings": 256}),
         shape=dict(batch=2, seq=7, lengths=[7, 5]), opt=adamw(3e-3, 0.1, clip_norm=0.5)),
    dict(name="qwen2",  # q/k/v biases, no o bias, tied, theta 1e6
         config={"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "vocab_size": 13, "hidden_size": 16,
                 "intermediate_size": 12, "num_hidden_layers": 2, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "hidden_act": "silu", "max_position_embeddings": MAX_SEQ,
                 "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": True,
                 "use_sliding_window": False, "sliding_window": None, "max_window_layers": 2},
         shape=dict(batch=2, seq=6, lengths=[6, 3]), opt=adamw(5e-3, 0.0, schedule=cosine(3, 10))),
    dict(name="qwen3",  # q/k norm, head_dim 8 != 12 / 4, GQA, untied
         config={"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "vocab_size": 11, "hidden_size": 12,
                 "intermediate_size": 12, "num_hidden_layers": 2, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "head_dim": 8, "hidden_act": "silu", "max_position_embeddings": MAX_SEQ,
                 "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "attention_bias": False,
                 "tie_word_embeddings": False, "use_sliding_window": False, "sliding_window": None},
         shape=dict(batch=2, seq=6, lengths=[5, 6]), opt=adamw(1e-2, 0.05, clip_norm=1.0)),
    dict(name="gemma3",  # (1 + w) RMSNorm, sandwich, GeGLU, embed scale, q/k norm, sliding/full layers
         config={"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "vocab_size": 11,
                 "hidden_size": 12, "intermediate_size": 14, "num_hidden_layers": 3, "num_attention_heads": 2,
                 "num_key_value_heads": 1, "head_dim": 8, "hidden_activation": "gelu_pytorch_tanh",
                 "max_position_embeddings": MAX_SEQ, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
                 "rope_local_base_freq": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 8.0},
                 "query_pre_attn_scalar": 6, "sliding_window": 3, "sliding_window_pattern": 2,
                 "attention_bias": False, "tie_word_embeddings": True, "final_logit_softcapping": None,
                 "attn_logit_softcapping": None},
         shape=dict(batch=2, seq=7, lengths=[7, 5]), opt=adamw(1e-2, 0.01)),
    dict(name="alibi",  # Press et al., H = 6 (not a power of two), LayerNorm pre, ReLU, headDim 3, biases
         spec=hm.full_spec(vocabSize=11, dModel=12, heads=6, layers=2, ffnDim=16, maxSeq=MAX_SEQ, positions="alibi",
                           causal=True, norm="pre", finalNorm=True, activation="relu", layerNormEps=1e-5,
                           head="linear", headDim=3),
         shape=dict(batch=2, seq=6, lengths=[6, 4]), opt=adamw(2e-3, 0.0, schedule=cosine(2, 10))),
    dict(name="partial_rotary_linear",  # encoder: half the head rotates, linear scaling 2, window 2, all biases
         config=llama(vocab_size=11, hidden_size=16, intermediate_size=10, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, head_dim=8, partial_rotary_factor=0.5,
                      rope_scaling={"rope_type": "linear", "factor": 2.0}, attention_bias=True, mlp_bias=True,
                      use_bidirectional_attention=True, sliding_window=2,
                      layer_types=["sliding_attention", "sliding_attention"], rms_norm_eps=1e-5),
         shape=dict(batch=2, seq=6, lengths=[6, 5]), opt=adamw(1e-2, 0.01, clip_norm=1.0)),
]


class Case:
    """The reference model of a case and the map from its parameter names to ours."""

    def __init__(self, case):
        self.config = case.get("config")
        if self.config is not None:
            self.model = hm.HfCausalLM(self.config)
            self.spec = hm.spec_from_config(self.config, MAX_SEQ)
        else:
            self.model = hm.SpecModel(case["spec"])
            self.spec = case["spec"]

    def ours(self, named):
        """{our name: tensor} in our order from {reference name: tensor}."""
        if self.config is None:
            return {n: named[n] for n in self.model.state_dict()}
        return hm.ours_from_hf(named, self.config)


def randomize(case, gen):
    """Every parameter drawn in float32 in state_dict order: norms away from their init values."""
    rand = lambda shape, std: torch.randn(*shape, generator=gen, dtype=torch.float32) * std  # noqa: E731
    offset = case.spec["normType"] == "rmsnorm_offset"
    with torch.no_grad():
        for name, p in case.model.named_parameters():
            leaf = name.rsplit(".", 1)[-1]
            is_norm = "norm" in name
            if is_norm and leaf == "weight":
                p.copy_(rand(p.shape, 0.3) + (0.0 if offset else 1.0))
            elif is_norm:
                p.copy_(rand(p.shape, 0.1))
            elif "embed" in name:
                p.copy_(rand(p.shape, 0.5))
            elif leaf == "bias" or name.endswith("in_proj_bias"):
                p.copy_(rand(p.shape, 0.15))
            else:
                p.copy_(rand(p.shape, 0.35))  # attention is far from uniform, yet few heads saturate


def loss_of(out, targets):
    logits = out["logits"]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets, ignore_index=IGNORE, reduction="mean")


def train(case, args, targets, opt):
    """torch.optim.AdamW on a float64 copy (as generate_training_fixtures.train), reference names."""
    md = copy.deepcopy(case.model).double()
    names = list(md.state_dict())
    params = dict(md.named_parameters())
    assert list(params) == names
    params = [params[n] for n in names]
    optimizer = torch.optim.AdamW(params, lr=opt["lr"], betas=tuple(opt["betas"]), eps=opt["eps"],
                                  weight_decay=opt["weightDecay"])
    scheduler = None
    if opt["schedule"] is not None:
        from generate_training_fixtures import lr_multiplier
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda t: lr_multiplier(opt["schedule"], t))
    steps, first, largest = [], None, [torch.zeros_like(p) for p in params]
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = loss_of(md(*args), targets)
        loss.backward()
        for m, p in zip(largest, params):
            torch.maximum(m, p.grad.detach().abs(), out=m)
        if first is None:
            first = (float(loss.item()), {n: p.grad.detach().clone() for n, p in zip(names, params)})
        if opt["clipNorm"] is not None:
            norm = torch.nn.utils.clip_grad_norm_(params, opt["clipNorm"])
        else:
            norm = total_norm(params)
        lr = optimizer.param_groups[0]["lr"]
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        steps.append({"loss": float(loss.item()), "gradNorm": float(norm.item()), "lr": float(lr)})
    final = {n: p.detach().clone() for n, p in zip(names, params)}
    return steps, first, final, dict(zip(names, largest))


def write_case(index, c):
    name, shape, opt = c["name"], c["shape"], c["opt"]
    gen = torch.Generator().manual_seed(SEED + index)
    case = Case(c)
    randomize(case, gen)
    b, s, lengths = shape["batch"], shape["seq"], shape["lengths"]
    ids = torch.randint(0, case.spec["vocabSize"], (b, s), generator=gen)
    ids[padding_mask(lengths, s)] = 0
    attention_mask = (~padding_mask(lengths, s)).long()
    targets = random_targets(case.spec, gen, b, s, lengths)
    target_t = torch.tensor(targets, dtype=torch.long)
    args = (ids, attention_mask)

    out = hm.run(case.model, *args)
    for key in ("hidden", "logits"):
        assert torch.isfinite(out[key]).all(), (name, key, "a query row with no visible key?")
    # Attention far from uniform: wrong masks, rotations or scales change the outputs by O(1).
    spread = max(float((w.amax(-1) - 1.0 / (w > 0).sum(-1)).mean()) for w in out["attentions"])
    assert spread > 0.1, (name, spread)

    steps, (loss, grads), final, largest = train(case, args, target_t, opt)
    for st in steps:
        assert math.isfinite(st["loss"]) and math.isfinite(st["gradNorm"]), name
    if opt["clipNorm"] is not None:
        assert steps[0]["gradNorm"] > opt["clipNorm"], (name, "clipping never triggers", steps[0])
    assert steps[-1]["loss"] < steps[0]["loss"], (name, "training does not lower the loss")

    state = case.ours(case.model.state_dict())
    safetensors_io.write(os.path.join(MODERN, name + ".safetensors"), state, metadata={"format": "pt"})
    if case.config is not None:
        safetensors_io.write(os.path.join(MODERN, name + ".hf.safetensors"), case.model.state_dict(),
                             metadata={"format": "pt"})
    noise = {n: torch.nonzero(m.reshape(-1) < NOISE_GRADIENT).reshape(-1).tolist()
             for n, m in case.ours(largest).items() if (m < NOISE_GRADIENT).any()}
    fixture = {
        "name": name, "generator": "tests/reference/generate_modern_fixtures.py", "torch": torch.__version__,
        "reference": "hf_modern.HfCausalLM" if case.config is not None else "hf_modern.SpecModel",
        "config": case.config, "spec": case.spec,
        "parameters": [{"name": n, "shape": list(t.shape)} for n, t in state.items()],
        "hfParameters": None if case.config is None else
        [{"name": n, "shape": list(t.shape)} for n, t in case.model.state_dict().items()],
        "hfSources": None if case.config is None else {o: names for o, names in hm.hf_sources(case.config)},
        "batch": b, "seq": s, "ids": [int(v) for v in ids.reshape(-1).tolist()], "lengths": list(lengths),
        "targets": targets,
        "layer_outputs": [flat(t) for t in out["layer_outputs"]],
        "weights": [flat(t) for t in out["attentions"]],
        "hidden": flat(out["hidden"]),
        "logits": flat(out["logits"]),
        "loss": loss,
        "gradients": {n: flat(g) for n, g in case.ours(grads).items()},
        "optimizer": opt,
        "steps": steps,
        "final": {n: flat(p) for n, p in case.ours(final).items()},
        "noiseGradients": noise,
    }
    write_json(os.path.join(MODERN, name + ".json"), fixture)
    size = os.path.getsize(os.path.join(MODERN, name + ".json"))
    assert size < 200_000, (name, size)
    clipped = sum(st["gradNorm"] > opt["clipNorm"] for st in steps) if opt["clipNorm"] is not None else None
    print("%-22s %6d B  spread %.2f  loss %.5f -> %.5f  gradNorm %.3f..%.3f  clipped %s  noise %d" % (
        name, size, spread, steps[0]["loss"], steps[-1]["loss"], min(st["gradNorm"] for st in steps),
        max(st["gradNorm"] for st in steps), clipped, sum(len(v) for v in noise.values())))


def main():
    os.makedirs(MODERN, exist_ok=True)
    for index, c in enumerate(CASES):
        write_case(index, c)


if __name__ == "__main__":
    main()
