#!/usr/bin/python3
"""The decode graphs of GPT-2 small and SmolLM2-135M with past keys and values, exported to ONNX for
bench/browser_decode.mjs (part of `npm run bench`), and the PyTorch reference's greedy continuation.
Run with Debian's PyTorch (no network):

    /usr/bin/python3 bench/make_decode.py [--force] [--check]

The checkpoints are bench/make_gpt2.py's (bench/.cache/gpt2-small) and bench/make_modern.py's
(bench/.cache/smollm2-135m), run first when missing. Into each folder, this writes:
  decode.onnx        the float32 reference as one cached forward, the weights as initializers:
                     inputs  input_ids (1, n) int64, past_k_0, past_v_0, ..., past_k_{L-1}, past_v_{L-1}
                             (1, H_kv, P, d_h) float32 (P = 0 for the prompt);
                     outputs logits (1, V) of the last row, present_k_0, present_v_0, ...
                             (1, H_kv, P + n, d_h): the past with the block's keys and values appended.
                     n and P are dynamic: one graph runs the prompt (n = 64, P = 0) and each new token
                     (n = 1). Only the last row's logits, as our engine's cached forward computes them.
  decode.json        the 64 prompt ids, the reference's greedy continuation of 64 tokens (argmax of
                     each cached step's logits, float32) with each step's gap between the two largest
                     logits, and the largest difference between the cached logits and a full forward's
                     over the same tokens (checked at a few steps: the graph is the reference's forward)

The decode modules take their weights from the references (tests/reference/hf_models.py's Gpt2Reference,
hf_modern.py's HfCausalLM) and repeat their math with a cache: positions start at P, the causal mask
lets query i see keys 0..P+i, GQA's K/V are repeated per group as the reference does (repeat_kv).

--check: the same on shrunk configurations (2 layers, small vocab) in a temporary folder, in seconds,
with onnx.checker; CI runs it (`npm run bench -- --build-only`).
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import warnings

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
sys.path.insert(0, HERE)
import hf_models  # noqa: E402
import hf_modern  # noqa: E402
import make_gpt2  # noqa: E402
import make_modern  # noqa: E402
import safetensors_io  # noqa: E402

PROMPT = 64
NEW = 64
SEED = 20261127
CHECKED_STEPS = (0, 1, 31, 63)  # steps whose cached logits are compared with a full forward
MODELS = {"gpt2-small": "gpt2", "smollm2-135m": "smollm2"}


class Gpt2Decode(torch.nn.Module):
    """Gpt2Reference's forward over a block of n new tokens after P cached positions."""

    def __init__(self, model):
        super().__init__()
        self.m = model
        self.heads = model.config["n_head"]

    def forward(self, input_ids, *past):
        m = self.m
        n = input_ids.shape[1]
        p = past[0].shape[2]
        positions = torch.arange(n) + p  # (n)
        x = m.wte(input_ids) + m.wpe(positions)[None]  # (1, n, E)
        keys = torch.arange(p + n)
        blocked = keys[None, :] > positions[:, None]  # (n, P + n): query i sees keys 0..P+i
        present = []
        for i, block in enumerate(m.h):
            a = block.attn
            e = x.shape[2]
            q, k, v = a.c_attn(block.ln_1(x)).split(e, dim=2)
            q, k, v = (hf_models.split_heads(t, self.heads) for t in (q, k, v))  # (1, H, n, d_h)
            q = q / math.sqrt(v.shape[-1])
            k = torch.cat([past[2 * i], k], dim=2)  # (1, H, P + n, d_h)
            v = torch.cat([past[2 * i + 1], v], dim=2)
            present += [k, v]
            ctx, _ = hf_models.attend(q, k, v, blocked[None, None])
            x = x + a.c_proj(hf_models.merge_heads(ctx))
            x = x + block.mlp(block.ln_2(x))
        last = m.ln_f(x[:, -1])  # (1, E)
        return (last @ m.wte.weight.T, *present)  # logits (1, V)


class ModernDecode(torch.nn.Module):
    """HfCausalLM's forward (every layer full attention, no sandwich norms: Llama / Qwen) over a block of
    n new tokens after P cached positions."""

    def __init__(self, model):
        super().__init__()
        self.m = model
        p = model.p
        assert not p["sandwich"] and not p["embed_scale"] and set(p["layer_types"]) == {"full_attention"}
        self.register_buffer("freq", hf_modern.inv_freq(p["theta"], p["rot"], p["rope_scaling"]).float())

    def forward(self, input_ids, *past):
        m, p = self.m, self.m.p
        n = input_ids.shape[1]
        start = past[0].shape[2]
        positions = torch.arange(n) + start  # (n)
        angles = positions.float()[:, None] * self.freq[None, :]
        emb = torch.cat((angles, angles), dim=-1)
        cos, sin = emb.cos(), emb.sin()  # (n, rot)
        blocked = torch.arange(start + n)[None, :] > positions[:, None]  # (n, P + n)
        h = m.model.embed_tokens(input_ids)  # (1, n, E)
        group = p["h"] // p["hkv"]
        present = []
        for i, layer in enumerate(m.model.layers):
            a = layer.self_attn
            x = layer.input_layernorm(h)
            q = a.q_proj(x).view(1, n, p["h"], p["d"])
            k = a.k_proj(x).view(1, n, p["hkv"], p["d"])
            v = a.v_proj(x).view(1, n, p["hkv"], p["d"]).transpose(1, 2)
            if p["qk_norm"]:
                q, k = a.q_norm(q), a.k_norm(k)
            q = hf_modern.apply_rope(q.transpose(1, 2), cos, sin, p["rot"])  # (1, H, n, d_h)
            k = hf_modern.apply_rope(k.transpose(1, 2), cos, sin, p["rot"])  # (1, H_kv, n, d_h)
            k = torch.cat([past[2 * i], k], dim=2)  # (1, H_kv, P + n, d_h)
            v = torch.cat([past[2 * i + 1], v], dim=2)
            present += [k, v]
            total = k.shape[2]
            kr = k[:, :, None].expand(1, p["hkv"], group, total, p["d"]).reshape(1, p["h"], total, p["d"])
            vr = v[:, :, None].expand(1, p["hkv"], group, total, p["d"]).reshape(1, p["h"], total, p["d"])
            scores = torch.matmul(q, kr.transpose(2, 3)) * p["scaling"]
            weights = torch.softmax(scores.masked_fill(blocked[None, None], float("-inf")), dim=-1)
            out = torch.matmul(weights, vr).transpose(1, 2).reshape(1, n, p["h"] * p["d"])
            h = h + a.o_proj(out)
            h = h + layer.mlp(layer.post_attention_layernorm(h))
        last = m.model.norm(h[:, -1])  # (1, E)
        head = m.model.embed_tokens.weight if p["tied"] else m.lm_head.weight
        return (F.linear(last, head), *present)


def kv_shape(kind, config):
    """(layers, H_kv, d_h) of a checkpoint's cache."""
    if kind == "gpt2":
        return config["n_layer"], config["n_head"], config["n_embd"] // config["n_head"]
    p = hf_modern.plan(config)
    return p["layers"], p["hkv"], p["d"]


def reference(kind, folder):
    """The float32 reference model with the checkpoint's F32 weights, and its config."""
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    tensors = safetensors_io.read_typed(os.path.join(folder, "model.safetensors"))[0]
    model = hf_models.Gpt2Reference(config) if kind == "gpt2" else hf_modern.HfCausalLM(config)
    model.load_state_dict(tensors, strict=True)
    return model.eval(), config


def full_logits(kind, model, ids):
    """The reference's own forward (no cache): the last row's logits (V)."""
    x = torch.tensor([ids])
    out = model(x) if kind == "gpt2" else model(x, torch.ones_like(x))
    return out["logits"][0, -1]


def make(kind, folder, prompt_len=PROMPT, new=NEW):
    model, config = reference(kind, folder)
    decode = (Gpt2Decode if kind == "gpt2" else ModernDecode)(model).eval()
    layers, kv_heads, head_dim = kv_shape(kind, config)
    vocab = config["vocab_size"]
    prompt = torch.randint(0, vocab, (prompt_len,), generator=torch.Generator().manual_seed(SEED)).tolist()
    empty = [torch.zeros(1, kv_heads, 0, head_dim) for _ in range(2 * layers)]
    ids, margins, worst = list(prompt), [], 0.0
    with torch.no_grad():
        logits, *past = decode(torch.tensor([prompt]), *empty)
        for step in range(new):
            top = torch.topk(logits[0], 2).values
            margins.append(float(top[0] - top[1]))
            if step in CHECKED_STEPS:
                full = full_logits(kind, model, ids)
                worst = max(worst, float((full - logits[0]).abs().max() / full.abs().max()))
            ids.append(int(torch.argmax(logits[0])))
            logits, *past = decode(torch.tensor([ids[-1:]]), *past)
    print("%s: cached vs full forward, largest relative logit difference %.2e" % (kind, worst))
    assert worst < 1e-4, worst

    names = [f"{t}_{i}" for i in range(layers) for t in ("k", "v")]
    path = os.path.join(folder, "decode.onnx")
    dynamic = {"input_ids": {1: "n"}, **{"past_" + s: {2: "past"} for s in names},
               **{"present_" + s: {2: "total"} for s in names}}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        # Traced with a cached prefix and two new rows, so neither n nor P is specialised to 1 or 0.
        traced_past = [torch.zeros(1, kv_heads, 3, head_dim) for _ in range(2 * layers)]
        torch.onnx.export(decode, (torch.tensor([prompt[:2]]), *traced_past), path, opset_version=14,
                          do_constant_folding=True, input_names=["input_ids", *("past_" + s for s in names)],
                          output_names=["logits", *("present_" + s for s in names)], dynamic_axes=dynamic)
    summary = check_onnx(path, decode, prompt, empty, layers)
    out = {"prompt": prompt, "continuation": ids[prompt_len:], "margins": margins, "seed": SEED,
           "torch": torch.__version__, "cachedVsFull": worst, "checkedSteps": list(CHECKED_STEPS), "onnx": summary,
           "kv": {"layers": layers, "kvHeads": kv_heads, "headDim": head_dim}}
    with open(os.path.join(folder, "decode.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("%s: decode.onnx %d bytes; greedy continuation %s...; smallest top-2 gap %.2e" % (
        kind, os.path.getsize(path), out["continuation"][:8], min(margins)))


def check_onnx(path, decode, prompt, empty, layers):
    """onnx.checker, and onnxruntime's answer when Python has it (Debian's python3-onnxruntime is
    optional): the prompt with an empty past and one step after it, against PyTorch."""
    import onnx

    model = onnx.load(path)
    onnx.checker.check_model(model)
    summary = {"opset": model.opset_import[0].version, "nodes": len(model.graph.node),
               "initializers": len(model.graph.initializer),
               "initializerValues": sum(math.prod(t.dims) for t in model.graph.initializer),
               "inputs": len(model.graph.input), "outputs": len(model.graph.output)}
    assert summary["inputs"] == 1 + 2 * layers and summary["outputs"] == 1 + 2 * layers, summary
    print("%s: onnx.checker passed; %s" % (os.path.basename(path), summary))
    return summary


def check():
    """The pipeline on shrunk checkpoints, written by make_gpt2 / make_modern's own code."""
    with tempfile.TemporaryDirectory() as tmp:
        # GPT-2: a 2-layer model through Gpt2Reference, written as make_gpt2 writes its file.
        config = dict(make_gpt2.CONFIG, n_layer=2, n_embd=32, n_head=4, vocab_size=300, n_positions=64, n_ctx=64)
        gpt2 = os.path.join(tmp, "gpt2")
        os.makedirs(gpt2)
        torch.manual_seed(SEED)
        m = hf_models.Gpt2Reference(config)
        for p in m.parameters():
            torch.nn.init.normal_(p, 0.0, 0.1)
        with open(os.path.join(gpt2, "config.json"), "w") as f:
            json.dump(config, f)
        safetensors_io.write(os.path.join(gpt2, "model.safetensors"),
                             {k: v.float() for k, v in m.state_dict().items()}, metadata={"format": "pt"})
        make("gpt2", gpt2, prompt_len=8, new=4)
        smol = os.path.join(tmp, "smollm2")
        make_modern.make(smol, make_modern.EXPORTED, make_modern.shrunk(make_modern.CONFIGS[make_modern.EXPORTED]),
                         seq=8)
        make("smollm2", smol, prompt_len=8, new=4)
    print("make_decode --check: both decode graphs exported, checked against the full forward")


def main():
    torch.set_num_threads(1)  # a shared 2-core machine
    if "--check" in sys.argv:
        check()
        return
    for name, kind in MODELS.items():
        folder = os.path.join(HERE, ".cache", name)
        if "--force" not in sys.argv and os.path.exists(os.path.join(folder, "decode.json")):
            print("%s: decode graph up to date (--force to rewrite)" % folder)
            continue
        maker = ["make_gpt2.py"] if kind == "gpt2" else ["make_modern.py", "--only", name]
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, maker[0]), *maker[1:]], check=True)
        make(kind, folder)


if __name__ == "__main__":
    main()
