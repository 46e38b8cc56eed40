#!/usr/bin/python3
"""Checks the modern fixtures (fixtures/modern/) and hf_modern.py. Prints one line per check group
and exits 1 on the first failure.

  (a) the directory is byte-for-byte a rerun of generate_modern_fixtures.py;
  (b) every file reads back strictly: our names, shapes and order = the JSON's `parameters` =
      SpecModel's state_dict (load_state_dict strict); the HF file = HfCausalLM's state_dict;
      the mapping round-trips bit for bit (HF file -> ours = our file, ours -> HF = HF file);
  (c) SpecModel (the contract written independently: pairwise rotation loops, a head-to-group
      index, masks from loops) on OUR file reproduces each fixture's forward (layer outputs,
      attention weights, hidden, logits), loss and every gradient; float64 central finite
      differences agree with the gradients of a few entries per tensor; a textbook AdamW on
      SpecModel's gradients reproduces `steps` and `final`;
  (d) the fixtures show the semantics they are meant to test: windows block exactly the keys
      the contract says on local layers and not on global ones, rows sum to 1, llama3 scaling
      hits all three frequency bands, key biases are gradient-free only where expected;
  (e) properties of hf_modern's pieces: RoPE scores depend on m - n only (plain, linear,
      llama3, partial), GQA equals MHA with the K/V heads repeated per group, (1 + w) RMSNorm
      with w = 0 equals RMSNorm with w = 1, ALiBi slopes, Gemma 3's layer pattern.
"""
import copy
import filecmp
import json
import math
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

import generate_modern_fixtures as gen
import hf_modern as hm
import safetensors_io
from common import OUT

MODERN = os.path.join(OUT, "modern")
IGNORE = -100


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def rel(a, b):
    a, b = torch.as_tensor(a, dtype=torch.float64), torch.as_tensor(b, dtype=torch.float64)
    return float(((a - b).abs() / b.abs().clamp(min=1.0)).max()) if a.numel() else 0.0


def load(name):
    with open(os.path.join(MODERN, name + ".json")) as f:
        return json.load(f)


def inputs(fx):
    b, s = fx["batch"], fx["seq"]
    ids = torch.tensor(fx["ids"]).reshape(b, s)
    mask = (torch.arange(s)[None, :] < torch.tensor(fx["lengths"])[:, None]).long()
    return ids, mask


def spec_model(fx, name):
    model = hm.SpecModel(fx["spec"])
    state = safetensors_io.read(os.path.join(MODERN, name + ".safetensors"))[0]
    check(list(state) == [p["name"] for p in fx["parameters"]], "%s: file order != parameters" % name)
    check(list(model.state_dict()) == list(state), "%s: SpecModel order != file" % name)
    check(all(list(state[p["name"]].shape) == p["shape"] for p in fx["parameters"]), "%s: shapes" % name)
    model.load_state_dict(state, strict=True)
    return model, state


def loss_of(out, targets):
    logits = out["logits"]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets, ignore_index=IGNORE)


def check_reproducible():
    with tempfile.TemporaryDirectory() as tmp:
        saved = gen.MODERN
        gen.MODERN = tmp
        devnull = open(os.devnull, "w")
        stdout, sys.stdout = sys.stdout, devnull
        try:
            gen.main()
        finally:
            sys.stdout = stdout
            gen.MODERN = saved
        ours, theirs = sorted(os.listdir(MODERN)), sorted(os.listdir(tmp))
        check(ours == theirs, "file lists differ: %s" % sorted(set(ours) ^ set(theirs)))
        for f in ours:
            check(filecmp.cmp(os.path.join(MODERN, f), os.path.join(tmp, f), shallow=False), "%s differs" % f)
    print("(a) %d files: byte-for-byte a rerun of the generator" % len(ours))
    return [f[: -len(".json")] for f in ours if f.endswith(".json")]


def check_mapping(name, fx, state):
    if fx["config"] is None:
        check(fx["hfParameters"] is None and not os.path.exists(os.path.join(MODERN, name + ".hf.safetensors")),
              "%s: an HF file without a config" % name)
        return
    hf = safetensors_io.read(os.path.join(MODERN, name + ".hf.safetensors"))[0]
    model = hm.HfCausalLM(fx["config"])
    check(list(model.state_dict()) == list(hf), "%s: HF file order != HfCausalLM" % name)
    check([{"name": n, "shape": list(t.shape)} for n, t in hf.items()] == fx["hfParameters"], "%s: hfParameters" % name)
    model.load_state_dict(hf, strict=True)
    mapped = hm.ours_from_hf(hf, fx["config"])
    check(list(mapped) == list(state) and all(torch.equal(mapped[k], state[k]) for k in state),
          "%s: HF -> ours != our file" % name)
    back = hm.hf_from_ours(state, fx["config"])
    check(list(sorted(back)) == list(sorted(hf)) and all(torch.equal(back[k], hf[k]) for k in hf),
          "%s: ours -> HF != HF file" % name)
    check(fx["hfSources"] == {o: n for o, n in hm.hf_sources(fx["config"])}, "%s: hfSources" % name)
    check(fx["spec"] == hm.spec_from_config(fx["config"], fx["spec"]["maxSeq"]), "%s: spec != config's" % name)
    # The HF model on the HF file gives the fixture's forward exactly as written.
    out = hm.run(model, *inputs(fx))
    check(rel(out["logits"].reshape(-1), fx["logits"]) == 0.0, "%s: HF logits not reproduced" % name)


def check_forward_and_gradients(name, fx, model):
    ids, mask = inputs(fx)
    out, md = hm.run(model, ids, mask, grad=True)
    worst = max([rel(t.detach().reshape(-1), e) for t, e in zip(out["layer_outputs"], fx["layer_outputs"])] +
                [rel(t.detach().reshape(-1), e) for t, e in zip(out["attentions"], fx["weights"])] +
                [rel(out["hidden"].detach().reshape(-1), fx["hidden"]),
                 rel(out["logits"].detach().reshape(-1), fx["logits"])])
    check(worst < 1e-12, "%s: SpecModel forward differs by %g" % (name, worst))
    targets = torch.tensor(fx["targets"])
    loss = loss_of(out, targets)
    loss.backward()
    check(rel(loss.item(), fx["loss"]) < 1e-13, "%s: loss" % name)
    grads = {n: p.grad.detach().clone() for n, p in md.named_parameters()}
    gworst = max(rel(grads[n].reshape(-1), g) for n, g in fx["gradients"].items())
    check(list(grads) == list(fx["gradients"]), "%s: gradient names" % name)
    check(gworst < 1e-11, "%s: gradients differ by %g" % (name, gworst))

    # Central finite differences of a few entries per tensor (float64).
    rng = torch.Generator().manual_seed(7)
    fd_worst, h = 0.0, 1e-6
    params = dict(md.named_parameters())
    for n, p in params.items():
        for i in torch.randint(0, p.numel(), (3,), generator=rng).tolist():
            with torch.no_grad():
                flat = p.view(-1)
                old = float(flat[i])
                flat[i] = old + h
                up = loss_of(md(ids, mask), targets).item()
                flat[i] = old - h
                down = loss_of(md(ids, mask), targets).item()
                flat[i] = old
            fd_worst = max(fd_worst, abs((up - down) / (2 * h) - fx["gradients"][n][i]))
    check(fd_worst < 1e-6, "%s: finite differences differ by %g" % (name, fd_worst))
    return worst, gworst, fd_worst


def multiplier(schedule, t):
    if schedule is None:
        return 1.0
    w, total = schedule["warmup"], schedule["total"]
    return (t + 1) / w if t < w else 0.5 * (1 + math.cos(math.pi * (t - w) / max(1, total - w)))


def check_adamw(name, fx, model):
    """The textbook AdamW (README of the training fixtures) on SpecModel's gradients."""
    ids, mask = inputs(fx)
    targets = torch.tensor(fx["targets"])
    opt = fx["optimizer"]
    md = copy.deepcopy(model).double()
    params = dict(md.named_parameters())
    m = {n: torch.zeros_like(p) for n, p in params.items()}
    v = {n: torch.zeros_like(p) for n, p in params.items()}
    b1, b2 = opt["betas"]
    for t, expected in enumerate(fx["steps"]):
        md.zero_grad()
        loss = loss_of(md(ids, mask), targets)
        loss.backward()
        g = {n: p.grad.detach().clone() for n, p in params.items()}
        norm = math.sqrt(sum(float((x * x).sum()) for x in g.values()))
        check(rel(loss.item(), expected["loss"]) < 1e-11 and rel(norm, expected["gradNorm"]) < 1e-11,
              "%s: step %d loss/gradNorm" % (name, t))
        if opt["clipNorm"] is not None:
            c = min(1.0, opt["clipNorm"] / (norm + 1e-6))
            g = {n: x * c for n, x in g.items()}
        lr = opt["lr"] * multiplier(opt["schedule"], t)
        check(lr == expected["lr"], "%s: step %d lr" % (name, t))
        k = t + 1
        with torch.no_grad():
            for n, p in params.items():
                p.mul_(1 - lr * opt["weightDecay"])
                m[n] = b1 * m[n] + (1 - b1) * g[n]
                v[n] = b2 * v[n] + (1 - b2) * g[n] * g[n]
                p.sub_(lr * (m[n] / (1 - b1 ** k)) / ((v[n] / (1 - b2 ** k)).sqrt() + opt["eps"]))
    worst = 0.0
    for n, p in params.items():
        got, want = p.detach().reshape(-1), torch.tensor(fx["final"][n], dtype=torch.float64)
        keep = torch.ones_like(want, dtype=torch.bool)
        keep[fx["noiseGradients"].get(n, [])] = False
        worst = max(worst, rel(got[keep], want[keep]))
        check(rel(got[~keep], want[~keep]) < 1e-6 if (~keep).any() else True, "%s: %s noise entries" % (name, n))
    check(worst < 1e-10, "%s: final parameters differ by %g" % (name, worst))
    return worst


def check_semantics(name, fx):
    spec = fx["spec"]
    b, s, hq = fx["batch"], fx["seq"], spec["heads"]
    lengths = fx["lengths"]
    for layer in range(spec["layers"]):
        w = torch.tensor(fx["weights"][layer], dtype=torch.float64).reshape(b, hq, s, s)
        check(rel(w.sum(-1), torch.ones(b, hq, s)) < 1e-13, "%s: rows do not sum to 1" % name)
        local = hm.local_layer(spec, layer)
        for bb in range(b):
            for i in range(s):
                for j in range(s):
                    visible = j < lengths[bb] and (not spec["causal"] or j <= i)
                    if local:
                        visible = visible and i - spec["window"] < j and (spec["causal"] or j < i + spec["window"])
                    zero = bool((w[bb, :, i, j] == 0).all())
                    check(zero != visible, "%s layer %d: weight (%d,%d,%d) %s" % (
                        name, layer, bb, i, j, "blocked key has weight" if not visible else "visible key is 0"))
    if spec["window"] and spec["windowPattern"] > 1:
        check(any(not hm.local_layer(spec, layer) for layer in range(spec["layers"])), "%s: no global layer" % name)
        check(s > spec["window"], "%s: the sequence fits in the window" % name)
    if spec["ropeScaling"] == "llama3":
        rs = fx["config"]["rope_scaling"]
        classes = hm.llama3_classes(spec["ropeTheta"], int(hm.head_dim(spec) * spec["ropeFraction"]), rs)
        check(all(c > 0 for c in classes), "%s: llama3 bands kept/smoothed/divided = %s" % (name, classes))
    # Key biases: zero gradient exactly where nothing varies with the key's position (no
    # rotation and no norm between bias and score): all of ALiBi's, the unrotated part of partial RoPE.
    d, hkv = hm.head_dim(spec), spec["kvHeads"] or spec["heads"]
    for layer in range(spec["layers"]):
        g = fx["gradients"].get("layers.%d.self_attn.in_proj_bias" % layer)
        if g is None:
            continue
        key = torch.tensor(g[hq * d: (hq + hkv) * d], dtype=torch.float64).reshape(hkv, d)
        rot = int(d * spec["ropeFraction"]) if spec["positions"] == "rope" else 0
        if not spec["qkNorm"] and rot < d:
            check(key[:, rot:].abs().max() < 1e-15, "%s: unrotated key-bias gradient not 0" % name)
        if rot:
            check(key[:, :rot].abs().max() > 1e-4, "%s: rotated key-bias gradient is 0" % name)


def check_properties():
    g = torch.Generator().manual_seed(3)
    # RoPE: q_m . k_n depends only on m - n (every scaling, partial rotation).
    for rot, d, rs in ((8, 8, None), (6, 6, {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                               "high_freq_factor": 4.0, "original_max_position_embeddings": 256}),
                       (4, 8, {"rope_type": "linear", "factor": 2.0})):
        freq = hm.inv_freq(10000.0, rot, rs)
        cos, sin = hm.cos_sin(freq, 12, torch.float64)
        q, k = torch.randn(d, generator=g, dtype=torch.float64), torch.randn(d, generator=g, dtype=torch.float64)
        rq = hm.apply_rope(q.expand(12, d)[None, None], cos, sin, rot)[0, 0]
        rk = hm.apply_rope(k.expand(12, d)[None, None], cos, sin, rot)[0, 0]
        for delta in range(-3, 4):
            scores = [float(rq[m] @ rk[m - delta]) for m in range(max(0, delta), min(12, 12 + delta))]
            check(max(scores) - min(scores) < 1e-12, "RoPE score varies along m - n = %d" % delta)
        check(torch.equal(rq[:, rot:], q[rot:].expand(12, d - rot)), "partial RoPE changed the passing dims")
        check(torch.allclose(rq[0], q), "RoPE at position 0 is not the identity")
    # llama3 scaling: the three bands as _compute_llama3_parameters.
    rs = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 256,
          "rope_type": "llama3"}
    base = hm.inv_freq(10000.0, 6, None)
    scaled = hm.inv_freq(10000.0, 6, rs)
    check(scaled[0] == base[0] and scaled[2] == base[2] / 8, "llama3: kept / divided bands")
    smooth = (256 / (2 * math.pi / base[1]) - 1) / 3
    check(abs(scaled[1] - ((1 - smooth) * base[1] / 8 + smooth * base[1])) < 1e-18, "llama3: smoothed band")

    # GQA with K/V heads repeated per group = MHA; with kvHeads = heads it is MHA itself.
    cfg = {"model_type": "llama", "vocab_size": 9, "hidden_size": 12, "intermediate_size": 10,
           "num_hidden_layers": 2, "num_attention_heads": 6, "num_key_value_heads": 2, "head_dim": 4}
    gqa = hm.HfCausalLM(cfg)
    mha = hm.HfCausalLM(dict(cfg, num_key_value_heads=6))
    with torch.no_grad():
        for p in gqa.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.4)
        state = gqa.state_dict()
        for n in list(state):
            if n.endswith("k_proj.weight") or n.endswith("v_proj.weight"):  # query head h reads K/V head h // 3
                state[n] = state[n].reshape(2, 1, 4, 12).expand(2, 3, 4, 12).reshape(24, 12)
        mha.load_state_dict(state, strict=True)
    ids, mask = torch.randint(0, 9, (2, 5), generator=g), torch.tensor([[1] * 5, [1] * 3 + [0] * 2])
    a, b = hm.run(gqa, ids, mask), hm.run(mha, ids, mask)
    check(rel(a["logits"], b["logits"]) < 1e-13, "GQA != MHA with repeated K/V heads")
    spec_mha = hm.spec_from_config(dict(cfg, num_key_value_heads=6), 8)
    check(spec_mha["kvHeads"] == 0, "kvHeads = heads maps to 0 (MHA)")
    sm = hm.SpecModel(spec_mha)
    sm.load_state_dict(hm.ours_from_hf(mha.state_dict(), dict(cfg, num_key_value_heads=6)), strict=True)
    check(rel(hm.run(sm, ids, mask)["logits"], b["logits"]) < 1e-13, "SpecModel MHA != HF MHA")

    # (1 + w) RMSNorm with w = 0 is RMSNorm with w = 1, and neither subtracts the mean.
    x = torch.randn(3, 7, generator=g, dtype=torch.float64) + 2.0
    off, plain = hm.RMSNorm(7, 1e-6, True).double(), hm.RMSNorm(7, 1e-6, False).double()
    check(torch.equal(off(x), plain(x)), "rmsnorm_offset(w=0) != rmsnorm(w=1)")
    check(float(plain(x).mean()) > 0.5, "RMSNorm removed the mean")
    ms = (x * x).mean(-1, keepdim=True)
    check(rel(plain(x), x / torch.sqrt(ms + 1e-6)) < 1e-15, "RMSNorm formula")

    # ALiBi slopes (Press et al.): powers of two, and H = 6 from 4 and every other of 8.
    check(hm.alibi_slopes(8) == [2.0 ** -(i + 1) for i in range(8)], "ALiBi slopes, H = 8")
    check(hm.alibi_slopes(6) == [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1, 2 ** -3], "ALiBi slopes, H = 6")
    check(hm.alibi_slopes(1) == [2.0 ** -8], "ALiBi slope, H = 1")

    # Gemma 3's layer pattern ((i + 1) % N == 0: global) and our windowPattern agree.
    gcfg = {"model_type": "gemma3_text", "vocab_size": 5, "hidden_size": 8, "intermediate_size": 8,
            "num_hidden_layers": 7, "num_attention_heads": 2, "head_dim": 4, "sliding_window": 3,
            "sliding_window_pattern": 3}
    types = hm.plan(gcfg)["layer_types"]
    check(types == ["sliding_attention", "sliding_attention", "full_attention"] * 2 + ["sliding_attention"],
          "Gemma 3 layer types %s" % types)
    spec = hm.spec_from_config(gcfg, 8)
    check(spec["windowPattern"] == 3 and
          [hm.local_layer(spec, i) for i in range(7)] == [t == "sliding_attention" for t in types],
          "windowPattern does not reproduce layer_types")
    try:
        hm.spec_from_config(dict(gcfg, layer_types=["full_attention"] + ["sliding_attention"] * 6), 8)
        check(False, "an inexpressible layer pattern was accepted")
    except hm.ConfigError:
        pass
    print("(e) RoPE relative positions (plain, llama3, linear, partial), llama3 bands, GQA = MHA with repeated "
          "K/V, (1 + w) RMSNorm, ALiBi slopes, Gemma 3 layer pattern")


def main():
    names = check_reproducible()
    stats = []
    for name in names:
        fx = load(name)
        model, state = spec_model(fx, name)
        check_mapping(name, fx, state)
        fwd, grad, fd = check_forward_and_gradients(name, fx, model)
        adam = check_adamw(name, fx, model)
        check_semantics(name, fx)
        stats.append((name, fwd, grad, fd, adam))
    print("(b) names, shapes and order strict; HF <-> ours round trips bit for bit (%d HF cases)" %
          sum(load(n)["config"] is not None for n in names))
    for name, fwd, grad, fd, adam in stats:
        print("(c) %-22s forward %.1e  gradients %.1e  finite differences %.1e  AdamW final %.1e" % (
            name, fwd, grad, fd, adam))
    print("(d) windows, causal and padding masks exact per layer; llama3 bands; key-bias gradients")
    check_properties()


if __name__ == "__main__":
    main()
