#!/usr/bin/python3
"""Checks the reference scripts and the committed fixtures against each other.

    /usr/bin/python3 tests/reference/selfcheck.py

- every fixtures/models/*.safetensors reads back with the strict reader and loads into the
  model its JSON describes with load_state_dict(strict=True), names in state_dict order;
- the F16/BF16 files read back equal to the *_as_f32 files, and the BF16/F16 bits match a
  hand-written round-to-nearest-even of the float32 bits;
- every model fixture's hidden/logits/layer_outputs equal an independent float64 forward
  written from the raw weights with plain tensor algebra (no nn layers), and the model's own
  forward re-run now;
- every mha_options.json case equals the same hand-written attention;
- the reader rejects broken files (gap, overlap, short data, trailing bytes, bad dtype, ...);
- roundtrip.py succeeds on a fixture (output equals the fixture) and fails cleanly on bad input.
"""
import glob
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import torch

import models
import roundtrip
import safetensors_io
from common import OUT, padding_mask

MODELS = os.path.join(OUT, "models")
TOL = 1e-11
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def close(a, b, what, tol=TOL):
    a = torch.as_tensor(a, dtype=torch.float64).reshape(-1)
    b = torch.as_tensor(b, dtype=torch.float64).reshape(-1)
    ok = a.shape == b.shape and bool(((a - b).abs() <= tol * (1 + b.abs())).all())
    check(ok, "%s (max diff %s)" % (what, (a - b).abs().max().item() if a.shape == b.shape else "shape"))


# ---------------------------------------------------------------- hand-written forward (float64)

def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w + b


def activation(name, x):
    if name == "relu":
        return torch.clamp(x, min=0)
    if name == "gelu":
        return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def attention(q_in, k_in, v_in, wq, wk, wv, bq, bk, bv, wo, bo, heads, blocked=None, additive=None):
    """q_in (B,Sq,E) k_in (B,Sk,kdim) v_in (B,Sk,vdim); blocked (B,Sq,Sk) bool; additive (Sq,Sk).
    Returns (output (B,Sq,E), weights (B,H,Sq,Sk))."""
    b, sq, e = q_in.shape
    sk = k_in.shape[1]
    d = e // heads
    lin = lambda x, w, bias: x @ w.T + (bias if bias is not None else 0)  # noqa: E731
    q = lin(q_in, wq, bq).reshape(b, sq, heads, d).transpose(1, 2)
    k = lin(k_in, wk, bk).reshape(b, sk, heads, d).transpose(1, 2)
    v = lin(v_in, wv, bv).reshape(b, sk, heads, d).transpose(1, 2)
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(d)
    if additive is not None:
        scores = scores + additive
    if blocked is not None:
        scores = scores.masked_fill(blocked[:, None], float("-inf"))
    weights = torch.exp(scores - scores.max(-1, keepdim=True).values)
    weights = weights / weights.sum(-1, keepdim=True)
    out = (weights @ v).transpose(1, 2).reshape(b, sq, e)
    return lin(out, wo, bo), weights


def packed_attention(w, prefix, x, kv, heads, blocked):
    wi, bi = w[prefix + "in_proj_weight"], w[prefix + "in_proj_bias"]
    wq, wk, wv = wi.chunk(3)
    bq, bk, bv = bi.chunk(3)
    return attention(x, kv, kv, wq, wk, wv, bq, bk, bv, w[prefix + "out_proj.weight"], w[prefix + "out_proj.bias"],
                     heads, blocked)[0]


def ffn(w, p, x, act):
    h = activation(act, x @ w[p + "linear1.weight"].T + w[p + "linear1.bias"])
    return h @ w[p + "linear2.weight"].T + w[p + "linear2.bias"]


def encoder_layer(w, p, x, spec, blocked):
    eps, act, heads = spec["layerNormEps"], spec["activation"], spec["heads"]
    ln = lambda x, n: layer_norm(x, w[p + n + ".weight"], w[p + n + ".bias"], eps)  # noqa: E731
    if spec["norm"] == "pre":
        x = x + packed_attention(w, p + "self_attn.", ln(x, "norm1"), ln(x, "norm1"), heads, blocked)
        return x + ffn(w, p, ln(x, "norm2"), act)
    x = ln(x + packed_attention(w, p + "self_attn.", x, x, heads, blocked), "norm1")
    return ln(x + ffn(w, p, x, act), "norm2")


def decoder_layer(w, p, x, mem, spec, self_blocked, cross_blocked):
    eps, act, heads = spec["layerNormEps"], spec["activation"], spec["heads"]
    ln = lambda x, n: layer_norm(x, w[p + n + ".weight"], w[p + n + ".bias"], eps)  # noqa: E731
    if spec["norm"] == "pre":
        y = ln(x, "norm1")
        x = x + packed_attention(w, p + "self_attn.", y, y, heads, self_blocked)
        x = x + packed_attention(w, p + "multihead_attn.", ln(x, "norm2"), mem, heads, cross_blocked)
        return x + ffn(w, p, ln(x, "norm3"), act)
    x = ln(x + packed_attention(w, p + "self_attn.", x, x, heads, self_blocked), "norm1")
    x = ln(x + packed_attention(w, p + "multihead_attn.", x, mem, heads, cross_blocked), "norm2")
    return ln(x + ffn(w, p, x, act), "norm3")


def sinusoid(max_seq, e):
    # Written independently of models.sinusoidal_table: PE[p, 2i] = sin(p / 10000^(2i/E)), cos at 2i+1.
    rows = []
    for p in range(max_seq):
        row = []
        for i in range((e + 1) // 2):
            angle = p / math.pow(10000.0, 2 * i / e)
            row += [math.sin(angle), math.cos(angle)]
        rows.append([struct.unpack("f", struct.pack("f", v))[0] for v in row[:e]])
    return torch.tensor(rows, dtype=torch.float64)


def manual_forward(spec, w, fx):
    w = {k: v.double() for k, v in w.items()}
    b = fx["batch"]

    def embed(ids, s):
        x = w["embed.weight"][torch.tensor(ids).reshape(b, s)]
        if spec["positions"] == "learned":
            x = x + w["pos.weight"][:s]
        elif spec["positions"] == "sinusoidal":
            x = x + sinusoid(spec["maxSeq"], spec["dModel"])[:s]
        return x

    def blocked(lengths, sq, sk, is_causal):
        m = padding_mask(lengths, sk)[:, None, :].expand(b, sq, sk)
        if is_causal:
            m = m | torch.triu(torch.ones(sq, sk, dtype=torch.bool), 1)
        return m

    s = fx["seq"]
    x = embed(fx["ids"], s)
    outs = []
    memory = None
    if spec["encoderLayers"] == 0:
        mask = blocked(fx["lengths"], s, s, spec["causal"])
        for i in range(spec["layers"]):
            x = encoder_layer(w, "layers.%d." % i, x, spec, mask)
            outs.append(x)
        if spec["finalNorm"]:
            x = layer_norm(x, w["norm.weight"], w["norm.bias"], spec["layerNormEps"])
    else:
        ss = fx["source_seq"]
        mem = embed(fx["source_ids"], ss)
        for i in range(spec["encoderLayers"]):
            mem = encoder_layer(w, "encoder.layers.%d." % i, mem, spec, blocked(fx["source_lengths"], ss, ss, False))
        if spec["finalNorm"]:
            mem = layer_norm(mem, w["encoder.norm.weight"], w["encoder.norm.bias"], spec["layerNormEps"])
        memory = mem
        self_mask = blocked(fx["lengths"], s, s, spec["causal"])
        cross_mask = blocked(fx["source_lengths"], s, ss, False)
        for i in range(spec["layers"]):
            x = decoder_layer(w, "decoder.layers.%d." % i, x, mem, spec, self_mask, cross_mask)
            outs.append(x)
        if spec["finalNorm"]:
            x = layer_norm(x, w["decoder.norm.weight"], w["decoder.norm.bias"], spec["layerNormEps"])
    logits = None
    if spec["head"] == "linear":
        logits = x @ w["head.weight"].T + w["head.bias"]
    elif spec["head"] == "tied":
        logits = x @ w["embed.weight"].T + w["head.bias"]
    return x, logits, outs, memory


# ---------------------------------------------------------------- checks

def check_model_fixtures():
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(MODELS, "*.json")))
    check(len(names) == 6, "six model fixtures, found %d" % len(names))
    for name in names:
        with open(os.path.join(MODELS, name + ".json")) as f:
            fx = json.load(f)
        spec, ignored = models.normalize_spec(fx["spec"])
        check(spec == fx["spec"] and not ignored, name + ": spec is complete and normalized")
        model = models.build(spec)
        tensors, meta = safetensors_io.read(os.path.join(MODELS, name + ".safetensors"))
        check(meta == {"format": "pt"}, name + ": metadata")
        check(list(tensors) == list(model.state_dict()), name + ": file order = state_dict order")
        check([{"name": k, "shape": list(v.shape)} for k, v in tensors.items()] == fx["parameters"],
              name + ": parameters list")
        model.load_state_dict(tensors, strict=True)
        for k, v in model.state_dict().items():
            check(torch.equal(v, tensors[k]), "%s: %s loaded exactly" % (name, k))
        b, s, e = fx["batch"], fx["seq"], spec["dModel"]
        check(len(fx["hidden"]) == b * s * e, name + ": hidden size")
        check(fx["logits"] is None if spec["head"] == "none" else len(fx["logits"]) == b * s * spec["vocabSize"],
              name + ": logits size")
        check(len(fx["layer_outputs"]) == spec["layers"], name + ": one output per layer")
        kpm = padding_mask(fx["lengths"], s)
        check(all(fx["ids"][i] == 0 for i, pad in enumerate(kpm.reshape(-1).tolist()) if pad), name + ": pad ids 0")

        hidden, logits, outs, memory = manual_forward(spec, tensors, fx)
        close(hidden, fx["hidden"], name + ": hidden = hand-written forward")
        if logits is not None:
            close(logits, fx["logits"], name + ": logits = hand-written forward")
        for i, o in enumerate(outs):
            close(o, fx["layer_outputs"][i], "%s: layer %d output = hand-written forward" % (name, i))
        if memory is not None:
            close(memory, fx["memory"], name + ": memory = hand-written forward")
        check(bool((hidden[kpm].abs().sum(-1) > 0).all()), name + ": padded rows computed")

        again = models.forward(model, fx)
        check(again["hidden"].reshape(-1).tolist() == fx["hidden"], name + ": forward is reproducible")


def rne_bits(x, keep):
    """float32 -> top `keep`-bit truncation with round-to-nearest-even, for BF16 (keep=16)."""
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    drop = 32 - keep
    rounded = u + ((1 << (drop - 1)) - 1) + ((u >> drop) & 1)
    return (rounded >> drop) & ((1 << keep) - 1)


def check_converted():
    base = os.path.join(MODELS, "post_relu_sinusoidal")
    f32, _ = safetensors_io.read(base + ".safetensors")
    for tag, store in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        low, _ = safetensors_io.read("%s.%s.safetensors" % (base, tag))
        up, _ = safetensors_io.read("%s.%s_as_f32.safetensors" % (base, tag))
        check(set(safetensors_io.dtypes("%s.%s.safetensors" % (base, tag)).values()) == {tag.upper()},
              tag + ": header dtype")
        check(list(low) == list(up) == list(f32), tag + ": names")
        for k in f32:
            check(torch.equal(low[k], up[k]), "%s: %s equals the upcast file" % (tag, k))
            check(torch.equal(up[k], f32[k].to(store).float()), "%s: %s is the rounded float32" % (tag, k))
        differs = sum(int(not torch.equal(up[k], f32[k])) for k in f32)
        check(differs == len(f32), tag + ": rounding changed every tensor")
    # BF16 bits against a hand-written round-to-nearest-even on the float32 bits.
    with open(base + ".bf16.safetensors", "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    for k, t in f32.items():
        b0, b1 = header[k]["data_offsets"]
        got = struct.unpack("<%dH" % ((b1 - b0) // 2), raw[8 + n + b0:8 + n + b1])
        want = tuple(rne_bits(v, 16) for v in t.reshape(-1).tolist())
        check(got == want, "bf16 bits of %s = round-to-nearest-even" % k)
    # Exact ties (1 + 2^-8 rounds down to the even 1.0, 1 + 3*2^-8 up to 1 + 2^-6), a subnormal,
    # large and tiny values: torch's conversion follows the same rule.
    for v in (1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), 3.0e-39, 65504.0, 1e-8):
        t = torch.tensor([v], dtype=torch.float32)
        check(int(t.to(torch.bfloat16).view(torch.int16).item()) & 0xFFFF == rne_bits(float(t), 16),
              "bf16 tie/edge %r" % v)


def check_mha_options():
    with open(os.path.join(OUT, "mha_options.json")) as f:
        cases = json.load(f)["cases"]
    for c in cases:
        b, sq, sk, e, h = c["batch"], c["query_len"], c["key_len"], c["embed_dim"], c["heads"]
        T = lambda v, *shape: None if v is None else torch.tensor(v, dtype=torch.float64).reshape(*shape)  # noqa
        if c["in_proj_weight"] is not None:
            wq, wk, wv = T(c["in_proj_weight"], 3 * e, e).chunk(3)
            check(c["kdim"] == e and c["vdim"] == e and c["q_proj_weight"] is None, c["name"] + ": packed")
        else:
            wq, wk, wv = T(c["q_proj_weight"], e, e), T(c["k_proj_weight"], e, c["kdim"]), T(c["v_proj_weight"], e, c["vdim"])
        bq = bk = bv = None
        if c["in_proj_bias"] is not None:
            bq, bk, bv = T(c["in_proj_bias"], 3 * e).chunk(3)
        check((c["in_proj_bias"] is None) == (not c["bias"]) == (c["out_proj_bias"] is None), c["name"] + ": bias")
        blocked = torch.zeros(b, sq, sk, dtype=torch.bool)
        if c["key_padding_mask"] is not None:
            blocked |= T(c["key_padding_mask"], b, sk).bool()[:, None, :]
        if c["attn_mask_bool"] is not None:
            blocked |= T(c["attn_mask_bool"], sq, sk).bool()[None]
        additive = None
        if c["attn_mask_float"] is not None:
            additive = torch.tensor([float("-inf") if v is None else v for v in c["attn_mask_float"]],
                                    dtype=torch.float64).reshape(sq, sk)
        out, weights = attention(T(c["query"], b, sq, e), T(c["key"], b, sk, c["kdim"]), T(c["value"], b, sk, c["vdim"]),
                                 wq, wk, wv, bq, bk, bv, T(c["out_proj_weight"], e, e), T(c["out_proj_bias"], e),
                                 h, blocked, additive)
        close(out, c["expected_output"], c["name"] + ": output = hand-written attention")
        if not c["need_weights"]:
            check(c["expected_weights"] is None, c["name"] + ": no weights")
        else:
            close(weights.mean(1) if c["average_attn_weights"] else weights, c["expected_weights"],
                  c["name"] + ": weights = hand-written attention")
    covered = {
        "bias=False": any(not c["bias"] for c in cases),
        "kdim/vdim": any(c["kdim"] != c["embed_dim"] or c["vdim"] != c["embed_dim"] for c in cases),
        "float mask with -inf": any(c["attn_mask_float"] and None in c["attn_mask_float"] for c in cases),
        "float mask + padding": any(c["attn_mask_float"] and c["key_padding_mask"] for c in cases),
        "need_weights=False": any(not c["need_weights"] for c in cases),
        "average_attn_weights": any(c["average_attn_weights"] for c in cases),
        "kdim=5 vdim=7 E=6 h=2": any((c["kdim"], c["vdim"], c["embed_dim"], c["heads"]) == (5, 7, 6, 2) for c in cases),
    }
    for what, ok in covered.items():
        check(ok, "mha_options covers " + what)


def check_reader_strict():
    good = {"a": torch.arange(6, dtype=torch.float32).reshape(2, 3), "b": torch.tensor([1.5, -2.0])}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.safetensors")
        safetensors_io.write(path, good, metadata={"k": "v"})
        with open(path, "rb") as f:
            raw = f.read()
        check(len(raw) % 8 == 0 and struct.unpack("<Q", raw[:8])[0] % 8 == 0, "header padded to 8")
        t, meta = safetensors_io.parse(raw)
        check(meta == {"k": "v"} and all(torch.equal(t[k], good[k]) for k in good), "reader round trip")
        (n,) = struct.unpack("<Q", raw[:8])
        header = json.loads(raw[8:8 + n])

        def rebuild(hdr, data=None, pad=True):
            text = json.dumps(hdr).encode()
            if pad:
                text += b" " * (-len(text) % 8)
            return struct.pack("<Q", len(text)) + text + (raw[8 + n:] if data is None else data)

        bad = {
            "trailing byte": raw + b"\0",
            "short data": raw[:-1],
            "header past end": struct.pack("<Q", len(raw)) + raw[8:],
            "tiny file": raw[:5],
            "gap": rebuild({**header, "b": {**header["b"], "data_offsets": [28, 36]}}, raw[8 + n:] + b"\0" * 4),
            "overlap": rebuild({**header, "b": {**header["b"], "data_offsets": [20, 28]}}, raw[8 + n:-4]),
            "wrong size for shape": rebuild({**header, "b": {**header["b"], "shape": [3]}}),
            "unsupported dtype": rebuild({**header, "b": {**header["b"], "dtype": "F64", "shape": [1]}}),
            "extra entry key": rebuild({**header, "b": {**header["b"], "extra": 1}}),
            "negative offset": rebuild({**header, "b": {**header["b"], "data_offsets": [-8, 24]}}),
            "metadata not str": rebuild({**header, "__metadata__": {"k": 1}}),
            "not an object": rebuild([1, 2]),
            "duplicate key": (lambda text: struct.pack("<Q", len(text)) + text)(
                b'{"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},'
                b'"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}}'),
            "NaN in header": (lambda text: struct.pack("<Q", len(text)) + text)(
                b'{"__metadata__":{"k":"v"},"a":{"dtype":"F32","shape":[0],"data_offsets":[0,NaN]}}'),
        }
        for what, data in bad.items():
            try:
                safetensors_io.parse(data)
                check(False, "reader rejects: " + what)
            except safetensors_io.SafetensorsError:
                pass
        # Unpadded headers and empty tensors are legal.
        t, _ = safetensors_io.parse(rebuild(header, pad=False))
        check(torch.equal(t["b"], good["b"]), "reader accepts an unpadded header")
        safetensors_io.write(path, {"e": torch.zeros(0, 3), "x": torch.ones(2)}, dtype="BF16")
        t, meta = safetensors_io.read(path)
        check(t["e"].shape == (0, 3) and torch.equal(t["x"], torch.ones(2)) and meta is None, "empty tensor")


def check_roundtrip_script():
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "roundtrip.py")
    run = lambda *a: subprocess.run([sys.executable, script, *a], capture_output=True, text=True)  # noqa: E731
    for name in ("post_relu_sinusoidal", "encdec_post_sinusoidal", "post_gelutanh_nopos_causal"):
        fx_path = os.path.join(MODELS, name + ".json")
        with open(fx_path) as f:
            fx = json.load(f)
        r = run(fx_path, os.path.join(MODELS, name + ".safetensors"), fx_path)
        out = json.loads(r.stdout)
        check(r.returncode == 0 and out["ok"] and out["parameters"] == len(fx["parameters"]), name + ": roundtrip ok")
        check(out.get("hidden") == fx["hidden"] and out.get("logits") == fx["logits"], name + ": roundtrip values")
    base = os.path.join(MODELS, "post_relu_sinusoidal")
    r = run(base + ".json", base + ".bf16.safetensors")
    check(r.returncode == 0 and json.loads(r.stdout)["ok"], "roundtrip accepts BF16 weights")
    with tempfile.TemporaryDirectory() as d:
        spec_path = os.path.join(d, "spec.json")
        with open(base + ".json") as f:
            spec = json.load(f)["spec"]
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        r = run(spec_path, base + ".safetensors")
        check(r.returncode == 0 and json.loads(r.stdout)["parameters"] == 27, "roundtrip with a bare spec")
        tensors, _ = safetensors_io.read(base + ".safetensors")
        broken = {k: v for k, v in tensors.items() if k != "head.bias"}
        safetensors_io.write(os.path.join(d, "missing.safetensors"), broken)
        renamed = dict(tensors)
        renamed["layers.0.norm1.scale"] = renamed.pop("layers.0.norm1.weight")
        safetensors_io.write(os.path.join(d, "renamed.safetensors"), renamed)
        reshaped = dict(tensors)
        reshaped["head.weight"] = reshaped["head.weight"].T.contiguous()
        safetensors_io.write(os.path.join(d, "reshaped.safetensors"), reshaped)
        nan = dict(tensors)
        nan["head.bias"] = nan["head.bias"].clone()
        nan["head.bias"][3] = float("nan")
        safetensors_io.write(os.path.join(d, "nan.safetensors"), nan)
        with open(os.path.join(d, "truncated.safetensors"), "wb") as f:
            with open(base + ".safetensors", "rb") as g:
                f.write(g.read()[:-4])
        bad_input = os.path.join(d, "input.json")
        with open(bad_input, "w") as f:
            json.dump({"batch": 1, "seq": 2, "ids": [1, 99], "lengths": [2]}, f)
        cases = (("missing tensor", (spec_path, os.path.join(d, "missing.safetensors"))),
                 ("renamed tensor", (spec_path, os.path.join(d, "renamed.safetensors"))),
                 ("transposed tensor", (spec_path, os.path.join(d, "reshaped.safetensors"))),
                 ("NaN weight", (spec_path, os.path.join(d, "nan.safetensors"))),
                 ("truncated file", (spec_path, os.path.join(d, "truncated.safetensors"))),
                 ("bad input ids", (spec_path, base + ".safetensors", bad_input)),
                 ("no such file", (spec_path, os.path.join(d, "nope.safetensors"))),
                 ("usage", (spec_path,)))
        # The command line once (exit code 1, one JSON line), the rest in-process (fast).
        r = run(*cases[0][1])
        try:
            out = json.loads(r.stdout)
        except ValueError:
            out = {}
        check(r.returncode == 1 and out.get("ok") is False and "head.bias" in out.get("error", ""),
              "roundtrip command fails cleanly (%s)" % (r.stdout.strip() or r.stderr.strip()[-200:]))
        for what, args in cases:
            try:
                roundtrip.run(list(args))
                check(False, "roundtrip fails: " + what)
            except (roundtrip.Failure, models.SpecError, safetensors_io.SafetensorsError):
                pass


def main():
    check_reader_strict()
    check_converted()
    check_mha_options()
    check_model_fixtures()
    check_roundtrip_script()
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("selfcheck: all checks passed")


if __name__ == "__main__":
    main()
