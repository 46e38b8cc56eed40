#!/usr/bin/python3
"""Checks fixtures/hub/ against independent computations.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/selfcheck_hub.py   (~10 s)

(a) The files on disk are byte-for-byte what generate_hub_fixtures.py produces (rerun in memory).
(b) Every .safetensors reads strictly; its F16 / BF16 tensors are the F32 weights drawn with the
    same seed rounded by numpy (F16) and by integer round-to-nearest-even (BF16), independently of
    torch's casts; the shards' union is exactly llama-tiny's file; the multimodal file holds the
    text model under language_model. plus the vision / projector tensors.
(c) Each expected.json equals a float64 forward of hf_modern.HfCausalLM on the weights read back
    from its own directory, and a second formulation of the same model: hf_modern.SpecModel (the
    engine's contract: pairwise rotation loops, a head-to-group index, masks from loops) on
    spec_from_config(reference_config) with the weights mapped by ours_from_hf (1e-7: the 9 digits
    expected.json keeps).
(d) Each config.json is the reference config's family as the hub writes it: the same values for
    every key the two share (Mistral's and the multimodal Gemma 3's reference configs are the
    llama / gemma3_text configs computing the same model, see generate_hub_fixtures.py; the
    bidirectional Gemma 3's sliding_window is the class's stored w // 2 + 1).
(e) Each tokenizer.json's vocabulary fits config.json's vocab_size (but for Gemma 3's
    <image_soft_token>, one past it as in the hub's files), and the Rust `tokenizers`
    package (node_modules, if present) loads it and round-trips a text.

Prints what was checked; exits 1 on the first failure.
"""
import json
import os
import subprocess
import sys

import numpy as np
import torch

import generate_hub_fixtures as gen
import hf_modern as hm
import safetensors_io

HUB = gen.HUB


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def rel(a, b):
    a, b = torch.as_tensor(a, dtype=torch.float64), torch.as_tensor(b, dtype=torch.float64)
    return float(((a - b).abs() / b.abs().clamp(min=1.0)).max()) if a.numel() else 0.0


def round_f16(t):
    return torch.from_numpy(t.numpy().astype(np.float16).astype(np.float32))


def round_bf16(t):
    bits = t.numpy().view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return torch.from_numpy(rounded.astype(np.uint32).view(np.float32).copy())


def read_dir(d):
    files = sorted(os.listdir(os.path.join(HUB, d)))
    state = {}
    for f in files:
        if f.endswith(".safetensors"):
            with open(os.path.join(HUB, d, f), "rb") as fh:
                tensors, dtypes, _ = safetensors_io.parse_typed(fh.read())
            for k, v in tensors.items():
                check(k not in state, "%s: %s twice" % (d, k))
                state[k] = (v, dtypes[k])
    return state


def main():
    files = gen.build_all(log=lambda s: None)
    on_disk = {}
    for d in sorted(os.listdir(HUB)):
        for f in sorted(os.listdir(os.path.join(HUB, d))):
            with open(os.path.join(HUB, d, f), "rb") as fh:
                on_disk[d + "/" + f] = fh.read()
    check(sorted(on_disk) == sorted(files), "file list differs: %s" % sorted(set(on_disk) ^ set(files)))
    for k in files:
        check(on_disk[k] == files[k], "%s differs from a fresh generation" % k)
    print("(a) %d files byte-for-byte as generated" % len(files))

    toks = {"llama3": gen.byte_level_tokenizer("llama3"), "qwen": gen.byte_level_tokenizer("qwen"),
            "gemma": gen.sentencepiece_tokenizer()}
    f32 = {}  # dir -> {hf name: float32} of the F32 draws (regenerated with the same seed)
    g = torch.Generator().manual_seed(gen.SEED)
    for name, cfg, ref_cfg, dtype, layout, kind, shared in gen.cases(toks):
        if layout == "sharded":
            continue
        model = hm.HfCausalLM(ref_cfg)
        gen.draw(model, g, offset_norms=model.p["offset"])
        f32[name] = {k: v.clone() for k, v in model.state_dict().items()}
        if layout == "multimodal":
            gen.multimodal_extras(g)
        gen.batch(toks[kind][2], toks[kind][3], kind, g)

    for name, cfg, ref_cfg, dtype, layout, kind, shared in gen.cases(toks):
        state = read_dir(name)
        want = f32["llama-tiny" if layout == "sharded" else name]
        if layout == "multimodal":
            extra = {k for k in state if not k.startswith("language_model.")}
            check(extra and all(k.startswith(("vision_tower.", "multi_modal_projector.")) for k in extra),
                  "%s: extras %s" % (name, sorted(extra)))
            state = {k[len("language_model."):]: v for k, v in state.items() if k.startswith("language_model.")}
        check(sorted(state) == sorted(want), "%s: names %s" % (name, sorted(set(state) ^ set(want))))
        rounding = {"F32": lambda t: t, "F16": round_f16, "BF16": round_bf16}[dtype]
        for k, (v, stored) in state.items():
            check(stored == dtype, "%s: %s stored as %s" % (name, k, stored))
            check(torch.equal(v.to(torch.float32), rounding(want[k])), "%s: %s values" % (name, k))
        weights = {k: v.to(torch.float32) for k, (v, _) in state.items()}
        if layout == "sharded":
            continue

        with open(os.path.join(HUB, name, "expected.json")) as fh:
            e = json.load(fh)
        check(e["reference_config"] == ref_cfg, "%s: reference_config" % name)
        b, s = e["batch"], e["seq"]
        ids = torch.tensor(e["input_ids"]).reshape(b, s)
        mask = torch.tensor(e["attention_mask"]).reshape(b, s)
        hf = hm.HfCausalLM(ref_cfg)
        hf.load_state_dict(weights, strict=True)
        out = hm.run(hf, ids, mask)
        spec = hm.spec_from_config(ref_cfg, 64)
        ours = hm.SpecModel(spec)
        ours.load_state_dict(hm.ours_from_hf(weights, ref_cfg), strict=True)
        twin = hm.run(ours, ids, mask)
        real = mask.bool()
        worst = 0.0
        for l, (w, w2) in enumerate(zip(out["attentions"], twin["attentions"])):
            got = torch.tensor(e["attentions"][l]).reshape(w.shape)
            worst = max(worst, rel(got, w), rel(w2, w))
        for l, h in enumerate(out["layer_outputs"][:-1] + [out["hidden"]]):
            worst = max(worst, rel(torch.tensor(e["hidden_states"][l + 1]).reshape(h.shape)[real], h[real]))
        worst = max(worst, rel(torch.tensor(e["logits"]).reshape(out["logits"].shape)[real], out["logits"][real]),
                    rel(twin["logits"][real], out["logits"][real]))
        check(worst < 1e-7, "%s: expected.json vs a forward of its own files: %.3g" % (name, worst))
        print("(b, c) %s: %s weights as drawn and rounded; expected.json = HfCausalLM = SpecModel (max rel %.2g)" % (
            name, dtype, worst))

        # (d) the hub config and the reference config agree on every key they share
        on_file = cfg.get("text_config", cfg)
        for k in set(on_file) & set(ref_cfg):
            if k in ("model_type", "architectures"):
                continue
            if k == "sliding_window" and on_file.get("use_bidirectional_attention"):  # the class's stored value
                check(ref_cfg[k] == on_file[k] // 2 + 1, "%s: bidirectional window" % name)
                continue
            check(on_file[k] == ref_cfg[k], "%s: config %s = %r, reference %r" % (name, k, on_file[k], ref_cfg[k]))
        vocab = len(json.loads(files[name + "/tokenizer.json"])["model"]["vocab"])
        added = [t for t in json.loads(files[name + "/tokenizer.json"])["added_tokens"]
                 if t["content"] != gen.IMAGE_TOKEN]  # Gemma 3's, one past the vocabulary as in the hub's files
        check(max([vocab - 1] + [t["id"] for t in added]) < on_file["vocab_size"], "%s: tokenizer too big" % name)

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rust = os.path.join(root, "node_modules", "tokenizers")
    if os.path.isdir(rust):
        script = ("const {Tokenizer}=require(%r);(async()=>{for(const d of process.argv.slice(1)){"
                  "const t=await Tokenizer.fromFile(%r+'/'+d+'/tokenizer.json');"
                  "const e=await t.encode('The cat sat on the mat. Ünïcode 123 — ok');"
                  "const back=await t.decode(e.getIds(),true);"
                  "if(back.trim()!=='The cat sat on the mat. Ünïcode 123 — ok')throw new Error(d+': '+back);}})()"
                  ".catch(e=>{console.error(e.message);process.exit(1)})") % (rust, HUB)
        dirs = [c[0] for c in gen.cases(toks)]
        r = subprocess.run(["node", "-e", script] + dirs, capture_output=True, text=True)
        check(r.returncode == 0, "Rust tokenizers: %s" % r.stderr.strip())
        print("(e) the Rust tokenizers package loads every tokenizer.json and round-trips a text")
    else:
        print("(e) skipped the Rust tokenizers check: node_modules/tokenizers not found")
    print("OK")


if __name__ == "__main__":
    main()
