#!/usr/bin/python3
"""Writes training reference fixtures: initial weights as .safetensors, loss, gradients and 10 AdamW steps as JSON.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_training_fixtures.py
Output (committed): tests/reference/fixtures/training/<case>.safetensors and <case>.json.

Weights, token ids and targets are drawn in float32 / int; everything after that runs on a
float64 copy of the model (train mode, dropout 0, gradients enabled: no fast path), so the
expected values are the exact answer for the float32 weights in the file.

Loss: F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=-100,
reduction='mean'); targets are -100 at padded positions (s >= lengths[b]) and at a few other
random positions. Training: torch.optim.AdamW on all parameters (state_dict order), on the
same fixed batch, each step: zero_grad, loss, backward, optional clip_grad_norm_, step, then
the optional LambdaLR schedule's step. See README.md for the JSON keys and the formulas.
"""
import copy
import math
import os

import torch
import torch.nn.functional as F

import models
import safetensors_io
from common import OUT, flat, padding_mask, write_json

TRAINING = os.path.join(OUT, "training")
SEED = 20261207
STEPS = 10
IGNORE = -100
EXTRA_IGNORED = 2  # non-padded positions per batch whose target is also -100


spec = models.make_spec


def adamw(lr, weight_decay, clip_norm=None, schedule=None, betas=(0.9, 0.999), eps=1e-8):
    return {"lr": lr, "betas": list(betas), "eps": eps, "weightDecay": weight_decay, "clipNorm": clip_norm,
            "schedule": schedule}


def cosine(warmup, total):
    return {"warmup": warmup, "total": total, "kind": "cosine"}


CASES = [
    ("post_relu_sinusoidal_linear",
     spec(11, 6, 3, 2, 10, 8, "sinusoidal", False, "post", False, "relu", 1e-5, "linear"),
     dict(batch=3, seq=6, lengths=[6, 4, 1]),
     adamw(1e-2, 0.01)),
    ("pre_gelu_learned_causal_tied",
     spec(11, 8, 2, 2, 12, 7, "learned", True, "pre", True, "gelu", 1e-5, "tied"),
     dict(batch=2, seq=5, lengths=[5, 3]),
     adamw(3e-3, 0.1, clip_norm=0.5)),
    ("post_gelutanh_nopos_causal_linear",
     spec(7, 6, 2, 3, 7, 8, "none", True, "post", False, "gelu_tanh", 1e-6, "linear"),
     dict(batch=2, seq=4, lengths=[4, 3]),
     adamw(5e-3, 0.0, schedule=cosine(3, 10))),
    ("pre_relu_learned_eps_linear",
     spec(9, 10, 5, 1, 12, 7, "learned", False, "pre", True, "relu", 1e-3, "linear"),
     dict(batch=3, seq=7, lengths=[7, 2, 5]),
     adamw(1e-2, 0.05, clip_norm=1.0)),
    ("encdec_post_sinusoidal",
     spec(10, 6, 2, 2, 7, 9, "sinusoidal", True, "post", True, "relu", 1e-5, "linear", encoder_layers=2),
     dict(batch=2, seq=4, lengths=[4, 2], source_seq=5, source_lengths=[5, 3]),
     adamw(1e-2, 0.01)),
    ("encdec_pre_gelu_learned_tied",
     spec(9, 6, 2, 2, 7, 7, "learned", False, "pre", False, "gelu", 1e-5, "tied", encoder_layers=1),
     dict(batch=3, seq=5, lengths=[3, 5, 1], source_seq=6, source_lengths=[6, 2, 4]),
     adamw(2e-3, 0.0, schedule=cosine(2, 10))),
]


def lr_multiplier(schedule, t):
    """The schedule's lr multiplier at step t (t = 0 for the first step)."""
    if schedule is None:
        return 1.0
    assert schedule["kind"] == "cosine", schedule
    w, total = schedule["warmup"], schedule["total"]
    if t < w:
        return (t + 1) / w
    return 0.5 * (1.0 + math.cos(math.pi * (t - w) / max(1, total - w)))


def random_targets(spec_, gen, batch, seq, lengths):
    """(B*S) ints: random ids in [0, V), -100 at padded positions and at EXTRA_IGNORED other random ones."""
    t = torch.randint(0, spec_["vocabSize"], (batch, seq), generator=gen)
    t[padding_mask(lengths, seq)] = IGNORE
    valid = [(b, s) for b in range(batch) for s in range(lengths[b])]
    for i in torch.randperm(len(valid), generator=gen)[:EXTRA_IGNORED].tolist():
        t[valid[i]] = IGNORE
    assert (t != IGNORE).any()
    return [int(v) for v in t.reshape(-1).tolist()]


def loss_fn(md, args, targets):
    """Mean cross-entropy of the model's logits against the targets (a (B*S) long tensor)."""
    logits = md(*args)[1]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets, ignore_index=IGNORE, reduction="mean")


def float64_copy(model):
    md = copy.deepcopy(model).double().train()
    names = list(md.state_dict())
    params = dict(md.named_parameters())
    assert list(params) == names, "state_dict and parameters differ: %r" % (set(names) ^ set(params))
    return md, [params[n] for n in names]


def total_norm(params):
    """The total L2 norm of all gradients, computed the way clip_grad_norm_ does (norm of the per-tensor norms)."""
    return torch.norm(torch.stack([torch.norm(p.grad.detach(), 2.0) for p in params]), 2.0)


def train(model, args, targets, opt):
    md, params = float64_copy(model)
    optimizer = torch.optim.AdamW(params, lr=opt["lr"], betas=tuple(opt["betas"]), eps=opt["eps"],
                                  weight_decay=opt["weightDecay"])
    scheduler = None
    if opt["schedule"] is not None:
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda t: lr_multiplier(opt["schedule"], t))
    steps = []
    first_grads = None
    largest = [torch.zeros_like(p) for p in params]  # max |gradient| of each entry over the steps
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = loss_fn(md, args, targets)
        loss.backward()
        for m, p in zip(largest, params):
            torch.maximum(m, p.grad.detach().abs(), out=m)
        if first_grads is None:
            first_grads = [p.grad.detach().clone() for p in params]
        if opt["clipNorm"] is not None:
            norm = torch.nn.utils.clip_grad_norm_(params, opt["clipNorm"])
        else:
            norm = total_norm(params)
        lr = optimizer.param_groups[0]["lr"]
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        steps.append({"loss": float(loss.item()), "gradNorm": float(norm.item()), "lr": float(lr)})
    final = [p.detach().clone() for p in params]
    return steps, first_grads, final, largest


QK_SCALE = 0.3
NOISE_GRADIENT = 1e-6


def unsaturate(model):
    """Scale every attention's query and key rows (and their biases) by QK_SCALE.

    With N(0, 0.5) weights some heads saturate (one key takes all the weight), and their
    query/key gradients fall to ~1e-8: in float32 those are rounding noise, which Adam
    (dividing by sqrt(v) + eps) turns into steps of up to lr, so `final` could not be
    compared there. Scaled down, every query/key weight gets a gradient well above noise
    (asserted in write_case).
    """
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.MultiheadAttention):
                e = module.embed_dim
                module.in_proj_weight[: 2 * e].mul_(QK_SCALE)
                module.in_proj_bias[: 2 * e].mul_(QK_SCALE)


def write_case(index, name, spec_, shape, opt):
    gen = torch.Generator().manual_seed(SEED + index)
    model = models.build(spec_)
    models.randomize(model, gen)
    unsaturate(model)
    inputs = models.random_inputs(spec_, gen, **shape)
    targets = random_targets(spec_, gen, shape["batch"], shape["seq"], shape["lengths"])
    args = models.check_inputs(model.spec, inputs)
    target_t = torch.tensor(targets, dtype=torch.long)

    # Loss and gradients at the initial weights, on their own float64 copy.
    md, params = float64_copy(model)
    loss = loss_fn(md, args, target_t)
    loss.backward()
    grads = [p.grad.detach() for p in params]
    names = list(md.state_dict())

    steps, first_grads, final, largest = train(model, args, target_t, opt)
    assert steps[0]["loss"] == float(loss.item()), name
    assert all(torch.equal(a, b) for a, b in zip(first_grads, grads)), name
    for s in steps:
        assert math.isfinite(s["loss"]) and math.isfinite(s["gradNorm"]), name
    if opt["clipNorm"] is not None:
        assert steps[0]["gradNorm"] > opt["clipNorm"], (name, "clipping never triggers", steps[0])
    assert steps[-1]["loss"] < steps[0]["loss"], (name, "training does not lower the loss")

    state = model.state_dict()
    safetensors_io.write(os.path.join(TRAINING, name + ".safetensors"), state, metadata={"format": "pt"})
    fixture = {"name": name, "generator": "tests/reference/generate_training_fixtures.py", "torch": torch.__version__,
               "spec": spec_, "parameters": models.parameter_list(model),
               "batch": inputs["batch"], "seq": inputs["seq"], "ids": inputs["ids"], "lengths": inputs["lengths"],
               "targets": targets}
    if spec_["encoderLayers"] > 0:
        fixture.update({k: inputs[k] for k in ("source_seq", "source_ids", "source_lengths")})
    fixture.update({"loss": float(loss.item()),
                    "gradients": {n: flat(g) for n, g in zip(names, grads)},
                    "optimizer": opt,
                    "steps": steps,
                    "final": {n: flat(p) for n, p in zip(names, final)},
                    # Entries whose gradient stayed below NOISE_GRADIENT in every step: in float32
                    # such a gradient is rounding noise, which Adam turns into steps of up to lr,
                    # so `final` there is only comparable to within the steps' total lr.
                    "noiseGradients": {n: torch.nonzero(m.reshape(-1) < NOISE_GRADIENT).reshape(-1).tolist()
                                       for n, m in zip(names, largest) if (m < NOISE_GRADIENT).any()}})
    write_json(os.path.join(TRAINING, name + ".json"), fixture)
    clipped = sum(s["gradNorm"] > opt["clipNorm"] for s in steps) if opt["clipNorm"] is not None else None
    print("%-36s loss %.6f -> %.6f  gradNorm %.4f..%.4f  clipped %s/%d" % (
        name, steps[0]["loss"], steps[-1]["loss"], min(s["gradNorm"] for s in steps),
        max(s["gradNorm"] for s in steps), clipped, STEPS))


def main():
    os.makedirs(TRAINING, exist_ok=True)
    for index, (name, spec_, shape, opt) in enumerate(CASES):
        write_case(index, name, spec_, shape, opt)


if __name__ == "__main__":
    main()
