#!/usr/bin/python3
"""Checks the training fixtures (fixtures/training/*) independently of torch.optim and F.cross_entropy.

    /usr/bin/python3 tests/reference/selfcheck_training.py       # a few seconds

- every .safetensors reads back strictly and loads into the model its JSON describes; names,
  shapes, targets (-100 at every padded position, else in [-100] + [0, V)) are consistent;
- loss and gradients: recomputed through selfcheck.manual_forward (plain tensor algebra, no nn
  layers) and a hand-written cross-entropy (logsumexp - logit[target], mean over targets != -100),
  differentiated by autograd; must match the fixture to 1e-12 relative;
- (a) central finite differences (float64, h = 1e-6) of the nn model's loss for the largest
  gradient entry of every parameter tensor and a few random ones with |g| >= 1e-3, against the
  fixture's gradients, to 1e-6 relative (every case; the strict requirement is for
  pre_gelu_learned_causal_tied, which has no ReLU kinks and a tied head);
- (b) AdamW by hand, twice, for every case, from the initial weights, with clipping and schedule:
  1. torch 1.13's exact order of operations (p *= 1 - lr*wd; m = m*b1 + (1-b1)*g;
     v = v*b2 + ((1-b2)*g)*g; denom = sqrt(v)/sqrt(1-b2^t) + eps; p += (-lr/(1-b1^t)) * m / denom),
     gradients from the nn model: must reproduce "final" bit for bit;
  2. the textbook formula (p -= lr*wd*p; m_hat = m/(1-b1^t); v_hat = v/(1-b2^t);
     p -= lr * m_hat / (sqrt(v_hat) + eps)), gradients through manual_forward, gradient norm as
     sqrt(sum g^2), clip factor max_norm/(norm + 1e-6) when < 1: "final" to 1e-12 relative;
  per-step loss/gradNorm are compared as well;
- (c) the recorded lr of every step equals lr * multiplier(t) from the schedule formula.
"""
import copy
import glob
import json
import math
import os
import random

import torch

import models
import safetensors_io
from common import OUT, padding_mask
from selfcheck import manual_forward

TRAINING = os.path.join(OUT, "training")
IGNORE = -100
failures = []
stats = {}


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def rel_err(a, b):
    a = torch.as_tensor(a, dtype=torch.float64).reshape(-1)
    b = torch.as_tensor(b, dtype=torch.float64).reshape(-1)
    return float(((a - b).abs() / (1 + b.abs())).max()) if a.numel() else 0.0


def close(a, b, what, tol, stat=None):
    e = rel_err(a, b)
    stat = stat or what.split(": ", 1)[-1]
    stats[stat] = max(stats.get(stat, 0.0), e)
    check(e <= tol, "%s (max rel diff %g)" % (what, e))


def key_bias_slices(spec, names):
    """{in_proj_bias name: slice of its key third} -- the entries whose gradient is analytically zero."""
    e = spec["dModel"]
    return {k: slice(e, 2 * e) for k in names if k.endswith("in_proj_bias")}


def multiplier(schedule, t):
    # Written again here (not imported): linear warmup to 1, then cosine decay to 0 at step `total`.
    if schedule is None:
        return 1.0
    w, total = schedule["warmup"], schedule["total"]
    if t < w:
        return (t + 1) / w
    return 0.5 * (1.0 + math.cos(math.pi * (t - w) / max(1, total - w)))


def hand_loss(spec, w, fx):
    logits = manual_forward(spec, w, fx)[1].reshape(-1, spec["vocabSize"])
    targets = torch.tensor(fx["targets"])
    keep = targets != IGNORE
    lg = logits[keep]
    nll = torch.logsumexp(lg, -1) - lg[torch.arange(lg.shape[0]), targets[keep]]
    return nll.sum() / keep.sum()


def load(name):
    with open(os.path.join(TRAINING, name + ".json")) as f:
        fx = json.load(f)
    spec, ignored = models.normalize_spec(fx["spec"])
    check(spec == fx["spec"] and not ignored, name + ": spec is complete and normalized")
    tensors, meta = safetensors_io.read(os.path.join(TRAINING, name + ".safetensors"))
    check(meta == {"format": "pt"}, name + ": metadata")
    model = models.build(spec)
    check(list(tensors) == list(model.state_dict()), name + ": file order = state_dict order")
    check([{"name": k, "shape": list(v.shape)} for k, v in tensors.items()] == fx["parameters"], name + ": parameters")
    model.load_state_dict(tensors, strict=True)
    return fx, spec, tensors, model


def nn_setup(model, fx):
    md = copy.deepcopy(model).double().train()
    params = dict(md.named_parameters())
    args = models.check_inputs(md.spec, fx)
    targets = torch.tensor(fx["targets"])
    v = md.spec["vocabSize"]

    def loss():
        logits = md(*args)[1]
        return torch.nn.functional.cross_entropy(logits.reshape(-1, v), targets, ignore_index=IGNORE)

    return md, params, loss


def check_layout(name, fx, spec):
    b, s = fx["batch"], fx["seq"]
    check(len(fx["targets"]) == b * s, name + ": targets size")
    pad = padding_mask(fx["lengths"], s).reshape(-1).tolist()
    check(all(t == IGNORE for t, p in zip(fx["targets"], pad) if p), name + ": -100 at padded positions")
    inner = [t for t, p in zip(fx["targets"], pad) if not p]
    check(all(t == IGNORE or 0 <= t < spec["vocabSize"] for t in inner), name + ": target ids in range")
    check(IGNORE in inner and any(t != IGNORE for t in inner), name + ": some non-padded targets ignored, not all")
    check(list(fx["gradients"]) == [p["name"] for p in fx["parameters"]], name + ": gradients in state_dict order")
    check(list(fx["final"]) == [p["name"] for p in fx["parameters"]], name + ": final in state_dict order")
    for p in fx["parameters"]:
        n = math.prod(p["shape"])
        check(len(fx["gradients"][p["name"]]) == n and len(fx["final"][p["name"]]) == n, name + ": sizes " + p["name"])
    check(len(fx["steps"]) == 10, name + ": 10 steps")
    check(fx["steps"][0]["loss"] == fx["loss"], name + ": steps[0].loss = loss")
    opt = fx["optimizer"]
    check(set(opt) == {"lr", "betas", "eps", "weightDecay", "clipNorm", "schedule"}, name + ": optimizer keys")


def check_loss_and_gradients(name, fx, spec, tensors):
    w = {k: v.double().requires_grad_() for k, v in tensors.items()}
    loss = hand_loss(spec, w, fx)
    loss.backward()
    close(loss.item(), fx["loss"], name + ": loss = hand-written forward + cross-entropy", 1e-12)
    for k, v in w.items():
        close(v.grad, fx["gradients"][k], "%s: gradient %s = autograd of the hand-written forward" % (name, k), 1e-12,
              "gradients = autograd of the hand-written forward")
    norm = math.sqrt(sum(float((v.grad ** 2).sum()) for v in w.values()))
    close(norm, fx["steps"][0]["gradNorm"], name + ": steps[0].gradNorm = sqrt(sum g^2)", 1e-12)


def check_finite_differences(name, fx, model, rng, tol=1e-6, h=1e-6):
    md, params, loss = nn_setup(model, fx)
    worst = 0.0
    count = 0
    with torch.no_grad():
        for k, p in params.items():
            g = torch.tensor(fx["gradients"][k], dtype=torch.float64)
            idx = [int(g.abs().argmax())]
            big = [i for i in range(g.numel()) if abs(g[i]) >= 1e-3 and i != idx[0]]
            idx += rng.sample(big, min(2, len(big)))
            for i in idx:
                if abs(g[i]) < 1e-3:
                    continue
                flat = p.view(-1)
                x0 = flat[i].item()
                flat[i] = x0 + h
                up = loss().item()
                flat[i] = x0 - h
                down = loss().item()
                flat[i] = x0
                fd = (up - down) / (2 * h)
                err = abs(fd - g[i].item()) / abs(g[i].item())
                worst = max(worst, err)
                count += 1
                check(err <= tol, "%s: finite difference %s[%d]: fd %r autograd %r (rel %g)" % (
                    name, k, i, fd, g[i].item(), err))
    print("  %-34s finite differences: %3d entries, max rel err %.2e" % (name, count, worst))
    return worst


def adamw_torch_order(name, fx, model):
    """AdamW in torch 1.13's exact order of operations; gradients and clipping from the nn model."""
    opt = fx["optimizer"]
    b1, b2 = opt["betas"]
    md, params, loss = nn_setup(model, fx)
    ps = list(params.values())
    m = [torch.zeros_like(p) for p in ps]
    v = [torch.zeros_like(p) for p in ps]
    for t in range(1, 11):
        for p in ps:
            p.grad = None
        l = loss()
        l.backward()
        gs = [p.grad.detach() for p in ps]
        norm = torch.norm(torch.stack([torch.norm(g, 2.0) for g in gs]), 2.0)
        check(l.item() == fx["steps"][t - 1]["loss"], "%s: torch-order step %d loss bitwise" % (name, t))
        check(norm.item() == fx["steps"][t - 1]["gradNorm"], "%s: torch-order step %d gradNorm bitwise" % (name, t))
        if opt["clipNorm"] is not None:
            coef = torch.clamp(opt["clipNorm"] / (norm + 1e-6), max=1.0)
            gs = [g * coef for g in gs]
        lr = opt["lr"] * multiplier(opt["schedule"], t - 1)
        bc1, bc2 = 1 - b1 ** float(t), 1 - b2 ** float(t)
        with torch.no_grad():
            for p, g, mi, vi in zip(ps, gs, m, v):
                p.mul_(1 - lr * opt["weightDecay"])
                mi.mul_(b1).add_(g, alpha=1 - b1)
                vi.mul_(b2).addcmul_(g, g, value=1 - b2)
                denom = (vi.sqrt() / math.sqrt(bc2)).add_(opt["eps"])
                p.addcdiv_(mi, denom, value=-(lr / bc1))
    same = all(torch.equal(p.detach().reshape(-1), torch.tensor(fx["final"][k], dtype=torch.float64))
               for k, p in zip(params, ps))
    check(same, name + ": torch-order AdamW reproduces final bit for bit")
    for k, p in zip(params, ps):
        close(p.detach(), fx["final"][k], name + ": torch-order AdamW final", 1e-12)
    return same


def adamw_textbook(name, fx, spec, tensors):
    """AdamW as the README writes it; gradients through the hand-written forward."""
    opt = fx["optimizer"]
    b1, b2 = opt["betas"]
    lr0, wd, eps, clip = opt["lr"], opt["weightDecay"], opt["eps"], opt["clipNorm"]
    w = {k: v.double().clone() for k, v in tensors.items()}
    m = {k: torch.zeros_like(x) for k, x in w.items()}
    v = {k: torch.zeros_like(x) for k, x in w.items()}
    gmax = {k: torch.zeros_like(x) for k, x in w.items()}
    for t in range(1, 11):
        wg = {k: x.detach().clone().requires_grad_() for k, x in w.items()}
        l = hand_loss(spec, wg, fx)
        l.backward()
        g = {k: x.grad for k, x in wg.items()}
        gmax = {k: torch.maximum(gmax[k], g[k].abs()) for k in g}
        norm = math.sqrt(sum(float((x ** 2).sum()) for x in g.values()))
        close(l.item(), fx["steps"][t - 1]["loss"], name + ": textbook step loss", 1e-12)
        close(norm, fx["steps"][t - 1]["gradNorm"], name + ": textbook step gradNorm", 1e-12)
        if clip is not None and clip / (norm + 1e-6) < 1:
            g = {k: x * (clip / (norm + 1e-6)) for k, x in g.items()}
        lr = lr0 * multiplier(opt["schedule"], t - 1)
        for k in w:
            p = w[k] - lr * wd * w[k]
            m[k] = b1 * m[k] + (1 - b1) * g[k]
            v[k] = b2 * v[k] + (1 - b2) * g[k] ** 2
            m_hat = m[k] / (1 - b1 ** t)
            v_hat = v[k] / (1 - b2 ** t)
            w[k] = p - lr * m_hat / (torch.sqrt(v_hat) + eps)
    # Adam divides each gradient by ~(|g| + eps): where |g| stays tiny, its rounding noise (~1e-17 here,
    # from two different forwards) moves the update by ~lr * noise / (|g| + eps). That is every key bias
    # (the key third of in_proj_bias: analytically zero gradient, softmax is shift-invariant) and any entry
    # whose |g| stays below 1e-6 over the 10 steps: those are compared in absolute terms, the rest to 1e-12.
    kb = key_bias_slices(spec, w)
    for k in w:
        got, want = w[k].reshape(-1), torch.tensor(fx["final"][k], dtype=torch.float64)
        tiny = gmax[k].reshape(-1) < 1e-6
        if k in kb:
            tiny[kb[k]] = True
        if tiny.any():
            d = float((got[tiny] - want[tiny]).abs().max())
            stat = "textbook AdamW final, key biases and max_t|g| < 1e-6 (abs)"
            stats[stat] = max(stats.get(stat, 0.0), d)
            check(d <= 1e-9, "%s: textbook AdamW final %s, tiny-gradient entries (abs diff %g)" % (name, k, d))
        close(got[~tiny], want[~tiny], name + ": textbook AdamW final " + k, 1e-12,
              "textbook AdamW final, the other entries")


def check_key_bias(name, fx, spec, tensors):
    """Key-bias gradients are noise; their final values are the zero-gradient trajectory (decay only) +- noise/eps."""
    opt = fx["optimizer"]
    decay = 1.0
    for s in fx["steps"]:
        decay *= 1 - s["lr"] * opt["weightDecay"]
    for k, sl in key_bias_slices(spec, tensors).items():
        g = max(abs(x) for x in fx["gradients"][k][sl])
        stats["|key-bias gradient| (abs)"] = max(stats.get("|key-bias gradient| (abs)", 0.0), g)
        check(g <= 1e-15, "%s: %s key-bias gradient is ~0 (%g)" % (name, k, g))
        zero_traj = tensors[k].double()[sl] * decay
        d = float((torch.tensor(fx["final"][k][sl], dtype=torch.float64) - zero_traj).abs().max())
        stats["final key bias - zero-gradient trajectory (abs)"] = max(
            stats.get("final key bias - zero-gradient trajectory (abs)", 0.0), d)
        check(d <= 1e-9, "%s: %s final key bias = zero-gradient trajectory (%g)" % (name, k, d))


def check_schedule(name, fx):
    opt = fx["optimizer"]
    exact = True
    for t, s in enumerate(fx["steps"]):
        want = opt["lr"] * multiplier(opt["schedule"], t)
        exact = exact and s["lr"] == want
        close(s["lr"], want, name + ": lr = lr * multiplier(t)", 1e-15)
    check(exact, name + ": recorded lrs bitwise equal the formula")
    return [s["lr"] for s in fx["steps"]]


def main():
    torch.set_num_threads(1)
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(TRAINING, "*.json")))
    check(len(names) == 6, "six training fixtures, found %d" % len(names))
    rng = random.Random(7)
    for name in names:
        fx, spec, tensors, model = load(name)
        check_layout(name, fx, spec)
        check_loss_and_gradients(name, fx, spec, tensors)
        worst = check_finite_differences(name, fx, model, rng)
        if name == "pre_gelu_learned_causal_tied":
            check(worst <= 1e-6, name + ": finite differences (strict case)")
        bitwise = adamw_torch_order(name, fx, model)
        adamw_textbook(name, fx, spec, tensors)
        check_key_bias(name, fx, spec, tensors)
        lrs = check_schedule(name, fx)
        clip = fx["optimizer"]["clipNorm"]
        clipped = sum(s["gradNorm"] > clip for s in fx["steps"]) if clip is not None else "-"
        print("  %-34s torch-order AdamW bitwise: %s; clipped steps: %s; lrs: %s" % (
            name, bitwise, clipped, " ".join("%.6g" % x for x in lrs) if fx["optimizer"]["schedule"] else "constant"))
    for k in sorted(stats):
        print("  max diff  %-58s %.2e" % (k, stats[k]))
    if failures:
        print("%d FAILURES" % len(failures))
        raise SystemExit(1)
    print("ok")


if __name__ == "__main__":
    main()
