#!/usr/bin/python3
"""Writes tiny random checkpoints of the modern families in the hub's layout, with golden outputs.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_hub_fixtures.py   (~3 s)
Output (committed): tests/reference/fixtures/hub/<dir>/ (see README.md, "Hub checkpoints of the
modern families"): config.json with each family's real field names, model.safetensors (or an
index and two shards), tokenizer.json + tokenizer_config.json in the family's real format, and
expected.json. Seeded and byte-for-byte reproducible; selfcheck_hub.py regenerates everything in
memory and compares.

The reference is hf_modern.HfCausalLM (transformers' LlamaForCausalLM / Qwen2 / Qwen3 /
Gemma3ForCausalLM semantics, Hugging Face's tensor names). Weights are drawn in float32; each
expected.json is a float64 forward of exactly the weights in its file (for F16 / BF16: the
weights rounded to that dtype), printed with 9 significant digits.

Three cases have no class of their own in hf_modern.py, or a config value the class rewrites,
and run through one that computes the same thing: Mistral (MistralForCausalLM is LlamaForCausalLM without biases and with a sliding
window on every layer: the reference is a llama config with layer_types all sliding_attention),
and the multimodal Gemma 3 (Gemma3ForConditionalGeneration's text forward is its
Gemma3ForCausalLM's on text_config: the reference is gemma3_text on text_config with the class
defaults filled in), and the bidirectional Gemma 3 (use_bidirectional_attention: the class
stores sliding_window // 2 + 1; the reference config carries that stored value).
"""
import json
import os
import sys

import torch

import hf_modern as hm
import hf_tokenize
from generate_pretrained_fixtures import (config_bytes, flat32, json_bytes, rounded, safetensors_bytes,
                                          trimmed_gpt2_tokenizer)
from common import OUT

HUB = os.path.join(OUT, "hub")
GENERATOR = "tests/reference/generate_hub_fixtures.py"
SEED = 20261127
DTYPE_NAMES = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}
STORE = {"F16": torch.float16, "BF16": torch.bfloat16}

# ------------------------------------------------------------------------------- tokenizers
# Byte-level BPE (Llama 3, Qwen 2 / 3): GPT-2's trimmed 256 byte tokens + 300 merges (ids 0..555,
# as gpt2-tiny), then the family's special tokens. SentencePiece-style BPE (Gemma 3): <pad>,
# <eos>, <bos>, <unk>, the 256 byte-fallback tokens <0x00>..<0xFF>, then ▁ and the printable
# ASCII characters, then GPT-2's merges whose parts are all in that vocabulary (Ġ read as ▁).

LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
              r"|\s*[\r\n]+|\s+(?!\S)|\s+")
SP = "\u2581"
IMAGE_TOKEN = "<image_soft_token>"


def added(i, content, special=True):
    return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": special}


def byte_level_tokenizer(kind):
    """(tokenizer.json, tokenizer_config.json, vocabulary size, {special: id}) of a Llama 3 or Qwen tokenizer."""
    vocab, merges, _ = trimmed_gpt2_tokenizer()
    vocab = {t: i for t, i in vocab.items() if i < 556}  # GPT-2's <|endoftext|> goes; the family's come
    n = len(vocab)
    if kind == "llama3":
        specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"]
        split = LLAMA3_SPLIT
    else:
        specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
        split = QWEN_SPLIT
    ids = {s: n + i for i, s in enumerate(specials)}
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    tok = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added(ids[s], s) for s in specials],
        "normalizer": None if kind == "llama3" else {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": split}, "behavior": "Isolated", "invert": False}, byte_level]},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": kind == "llama3",
                  "vocab": vocab, "merges": ["%s %s" % m for m in merges]},
    }
    byte_post = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True}
    if kind == "llama3":  # Llama 3's post-processor puts <|begin_of_text|> in front
        bos = "<|begin_of_text|>"
        tok["post_processor"] = {"type": "Sequence", "processors": [byte_post, {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": bos, "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {bos: {"id": bos, "ids": [ids[bos]], "tokens": [bos]}}}]}
        config = {"bos_token": bos, "eos_token": "<|end_of_text|>", "clean_up_tokenization_spaces": True,
                  "model_input_names": ["input_ids", "attention_mask"], "model_max_length": 131072,
                  "tokenizer_class": "PreTrainedTokenizerFast"}
    else:
        tok["post_processor"] = byte_post
        config = {"add_prefix_space": False, "bos_token": None, "eos_token": "<|im_end|>",
                  "pad_token": "<|endoftext|>", "errors": "replace", "split_special_tokens": False,
                  "model_max_length": 32768, "tokenizer_class": "Qwen2Tokenizer",
                  "chat_template": ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
                                    "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
                                    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")}
    config["added_tokens_decoder"] = {str(ids[s]): {k: v for k, v in added(ids[s], s).items() if k != "id"}
                                      for s in specials}
    return tok, config, n + len(specials), ids


def sentencepiece_tokenizer():
    """(tokenizer.json, tokenizer_config.json, vocabulary size, {special: id}) of a Gemma 3 style tokenizer."""
    _, gpt2_merges, _ = trimmed_gpt2_tokenizer()
    specials = ["<pad>", "<eos>", "<bos>", "<unk>"]
    vocab = {s: i for i, s in enumerate(specials)}
    for b in range(256):
        vocab["<0x%02X>" % b] = len(vocab)
    for ch in [SP] + [chr(c) for c in range(33, 127)]:
        vocab[ch] = len(vocab)
    merges = []
    for a, b in gpt2_merges:
        a, b = a.replace("\u0120", SP), b.replace("\u0120", SP)
        if a in vocab and b in vocab and a + b not in vocab:
            merges.append((a, b))
            vocab[a + b] = len(vocab)
    for t in vocab:
        if not t.startswith("<") and any(c not in vocab for c in t):
            raise SystemExit("SentencePiece vocabulary: %r has a character without a token" % t)
    specials_added = ["<start_of_turn>", "<end_of_turn>"]
    for s in specials_added:
        vocab[s] = len(vocab)
    # As Gemma 3's tokenizer.json: <image_soft_token> is an added token one past the model's
    # vocabulary (id 262144 of the 262144-row text models), so the tokenizer is one larger than
    # vocab_size.
    image = len(vocab)
    tok = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added(vocab[s], s) for s in specials + specials_added] + [added(image, IMAGE_TOKEN)],
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": SP},
        "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious",
                          "invert": False},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<bos>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<bos>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<bos>": {"id": "<bos>", "ids": [vocab["<bos>"]], "tokens": ["<bos>"]}}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": SP}, "content": " "}, {"type": "ByteFallback"},
            {"type": "Fuse"}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": ["%s %s" % m for m in merges]},
    }
    config = {"add_bos_token": True, "add_eos_token": False, "bos_token": "<bos>", "eos_token": "<eos>",
              "pad_token": "<pad>", "unk_token": "<unk>", "clean_up_tokenization_spaces": False,
              "model_max_length": 32768, "spaces_between_special_tokens": False,
              "tokenizer_class": "GemmaTokenizer",
              "added_tokens_decoder": {str(i): {k: v for k, v in added(i, s).items() if k != "id"}
                                       for s, i in [(s, vocab[s]) for s in specials + specials_added]
                                       + [(IMAGE_TOKEN, image)]}}
    return tok, config, len(vocab), {s: vocab[s] for s in specials + specials_added}


# ------------------------------------------------------------------------------------ cases

def llama_config(vocab, **kw):
    c = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
         "bos_token_id": vocab - 3, "eos_token_id": vocab - 2, "head_dim": 8, "hidden_act": "silu",
         "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 48, "max_position_embeddings": 64,
         "mlp_bias": False, "model_type": "llama", "num_attention_heads": 4, "num_hidden_layers": 2,
         "num_key_value_heads": 2, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": None,
         "rope_theta": 10000.0, "tie_word_embeddings": False, "torch_dtype": "float32",
         "transformers_version": "4.51.3", "use_cache": True, "vocab_size": vocab}
    c.update(kw)
    return c


def qwen_config(model_type, vocab, **kw):
    c = {"architectures": ["Qwen2ForCausalLM" if model_type == "qwen2" else "Qwen3ForCausalLM"],
         "attention_dropout": 0.0, "bos_token_id": vocab - 3, "eos_token_id": vocab - 3, "hidden_act": "silu",
         "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 40, "max_position_embeddings": 64,
         "max_window_layers": 2, "model_type": model_type, "num_attention_heads": 4, "num_hidden_layers": 2,
         "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000.0,
         "sliding_window": 64, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
         "transformers_version": "4.51.3", "use_cache": True, "use_sliding_window": False, "vocab_size": vocab}
    c.update(kw)
    return c


def gemma_text_config(vocab, **kw):
    c = {"architectures": ["Gemma3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
         "attn_logit_softcapping": None, "bos_token_id": 2, "eos_token_id": 1, "final_logit_softcapping": None,
         "head_dim": 16, "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 32, "initializer_range": 0.02,
         "intermediate_size": 48, "max_position_embeddings": 64, "model_type": "gemma3_text",
         "num_attention_heads": 4, "num_hidden_layers": 3, "num_key_value_heads": 1, "pad_token_id": 0,
         "query_pre_attn_scalar": 24, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0,
         "rope_scaling": None, "rope_theta": 1000000.0, "sliding_window": 3, "sliding_window_pattern": 2,
         "torch_dtype": "float32", "transformers_version": "4.51.3", "use_cache": True, "vocab_size": vocab}
    c.update(kw)
    return c


# Gemma3TextConfig's defaults the multimodal case leaves out of its text_config (hf_modern reads the
# same defaults when a key is absent, except sliding_window, which it needs given).
GEMMA3_TEXT_DEFAULTS = {"rope_local_base_freq": 10000.0, "rope_theta": 1000000.0,
                        "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-06}


def cases(tokenizers):
    """[(dir, file config, reference config, dtype, layout, tokenizer kind, expected shared by)]."""
    l3 = tokenizers["llama3"][2]
    qw = tokenizers["qwen"][2]
    sp = tokenizers["gemma"][2]
    llama = llama_config(l3)
    smollm = llama_config(l3, tie_word_embeddings=True, hidden_size=48, num_attention_heads=3,
                          num_key_value_heads=1, head_dim=16, intermediate_size=64, torch_dtype="bfloat16",
                          rope_theta=100000.0,
                          rope_scaling={"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                        "original_max_position_embeddings": 64, "rope_type": "llama3"})
    linear_bias = llama_config(l3, attention_bias=True, mlp_bias=True, num_key_value_heads=4, head_dim=None,
                             rope_scaling={"type": "linear", "factor": 4.0}, torch_dtype="float16")
    del linear_bias["head_dim"]
    qwen2 = qwen_config("qwen2", qw)
    qwen3 = qwen_config("qwen3", qw, hidden_size=48, head_dim=16, attention_bias=False, tie_word_embeddings=False,
                        num_hidden_layers=3, max_window_layers=3)
    gemma = gemma_text_config(sp, rope_scaling={"rope_type": "linear", "factor": 8.0})
    mm_text = {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 2,
               "num_key_value_heads": 1, "head_dim": 16, "sliding_window": 4, "vocab_size": sp,
               "query_pre_attn_scalar": 12,
               "model_type": "gemma3_text"}
    gemma_mm = {"architectures": ["Gemma3ForConditionalGeneration"], "boi_token_index": sp - 2,
                "eoi_token_index": sp - 1, "image_token_index": sp, "initializer_range": 0.02,
                "mm_tokens_per_image": 4, "model_type": "gemma3", "text_config": mm_text,
                "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0",
                "vision_config": {"hidden_size": 8, "image_size": 16, "intermediate_size": 16,
                                  "model_type": "siglip_vision_model", "num_attention_heads": 2,
                                  "num_hidden_layers": 1, "patch_size": 8, "vision_use_head": False}}
    gemma_mm_ref = dict(mm_text, **GEMMA3_TEXT_DEFAULTS)
    # An encoder Gemma 3 (EmbeddingGemma's flag): Gemma3TextConfig stores sliding_window // 2 + 1
    # (5 -> 3) and lets |i - j| < 3 through; the reference is given the stored value.
    bidirectional = gemma_text_config(sp, use_bidirectional_attention=True, sliding_window=5,
                                      architectures=["Gemma3ForCausalLM"])
    bidirectional_ref = dict(bidirectional, sliding_window=3)
    mistral = dict(llama_config(l3, sliding_window=3, num_key_value_heads=2), model_type="mistral",
                   architectures=["MistralForCausalLM"])
    for k in ("attention_bias", "mlp_bias", "pretraining_tp"):
        del mistral[k]
    mistral_ref = llama_config(l3, sliding_window=3, num_key_value_heads=2,
                               layer_types=["sliding_attention"] * 2)
    return [
        ("llama-tiny", llama, llama, "F32", "single", "llama3", ["llama-tiny", "llama-tiny-sharded"]),
        ("llama-tiny-sharded", llama, llama, "F32", "sharded", "llama3", None),
        ("smollm2-tiny-bf16", smollm, smollm, "BF16", "single", "llama3", ["smollm2-tiny-bf16"]),
        ("llama-linear-bias-f16", linear_bias, linear_bias, "F16", "single", "llama3", ["llama-linear-bias-f16"]),
        ("qwen2-tiny", qwen2, qwen2, "F32", "single", "qwen", ["qwen2-tiny"]),
        ("qwen3-tiny-bf16", qwen3, qwen3, "BF16", "single", "qwen", ["qwen3-tiny-bf16"]),
        ("gemma3-text-tiny", gemma, gemma, "F32", "single", "gemma", ["gemma3-text-tiny"]),
        ("gemma3-mm-tiny-bf16", gemma_mm, dict(gemma_mm_ref, model_type="gemma3_text"), "BF16", "multimodal",
         "gemma", ["gemma3-mm-tiny-bf16"]),
        ("mistral-tiny", mistral, mistral_ref, "F32", "single", "llama3", ["mistral-tiny"]),
        ("gemma3-bidirectional-tiny", bidirectional, bidirectional_ref, "F32", "single", "gemma",
         ["gemma3-bidirectional-tiny"]),
    ]


# ------------------------------------------------------------------------------------ weights

def rule(name):
    """(mean, std) of each parameter: norms near their identity (1 for Llama / Qwen, 0 for Gemma's
    (1 + w)), embeddings wide enough for peaked attention."""
    if "norm" in name:
        return 0.0, 0.2  # Gemma: 1 + w; Llama / Qwen: shifted to 1 below
    if "embed_tokens" in name:
        return 0.0, 0.6
    if name.endswith("bias"):
        return 0.0, 0.1
    if "q_proj" in name or "k_proj" in name:
        return 0.0, 0.35
    return 0.0, 0.25


def draw(model, gen, offset_norms):
    with torch.no_grad():
        for name, p in model.named_parameters():
            mean, std = rule(name)
            if "norm" in name and not offset_norms:
                mean = 1.0
            p.copy_(mean + std * torch.randn(*p.shape, generator=gen, dtype=torch.float32))


def batch(vocab, specials, kind, gen):
    """(ids, mask): two rows of seeded random ordinary ids, the second right-padded by 2 with the pad token
    (every padded query row still sees a real key through the smallest window, 3)."""
    seq = 9
    lengths = [seq, seq - 2]
    first = {"llama3": specials.get("<|begin_of_text|>"), "qwen": None, "gemma": specials.get("<bos>")}[kind]
    pad = {"llama3": specials.get("<|end_of_text|>"), "qwen": specials.get("<|endoftext|>"),
           "gemma": specials.get("<pad>")}[kind]
    low = 4 if kind == "gemma" else 0
    ordinary = vocab - len(specials) - low
    ids = []
    for n in lengths:
        row = [low + int(i) for i in torch.randint(0, ordinary, (n,), generator=gen)]
        if first is not None:
            row[0] = first
        ids.append(row + [pad] * (seq - n))
    mask = [[1] * n + [0] * (seq - n) for n in lengths]
    return ids, mask


def expected_doc(name, ref_config, model, ids, mask, dtype, shared):
    out = hm.run(model, torch.tensor(ids), torch.tensor(mask))
    b, s = len(ids), len(ids[0])
    hidden = [flat32(h) for h in out["layer_outputs"]]
    hidden[-1] = flat32(out["hidden"])  # Hugging Face's last hidden state is after the final norm
    return {"name": name, "generator": GENERATOR, "torch": torch.__version__, "dtype": dtype,
            "reference": "hf_modern.HfCausalLM", "reference_config": ref_config, "shared_by": shared,
            "batch": b, "seq": s, "lengths": [sum(r) for r in mask],
            "input_ids": [i for r in ids for i in r], "attention_mask": [m for r in mask for m in r],
            "attentions": [flat32(w) for w in out["attentions"]],
            # [0] the first layer's input (embeddings, scaled for Gemma), [l + 1] layer l's output,
            # the last after the final norm (Hugging Face's output_hidden_states convention)
            "hidden_states": [flat32(embedded(model, ids))] + hidden,
            "logits": flat32(out["logits"])}, out


def embedded(model, ids):
    e = model.model.embed_tokens.weight.detach().double()[torch.tensor(ids)]
    if model.p["embed_scale"]:
        e = e * torch.tensor(model.p["e"] ** 0.5, dtype=torch.float32).double()
    return e


def check_attention(name, out, mask):
    """Attention must not be near-uniform: real rows with >= 3 allowed keys, mean max weight over 1/k."""
    total, count = 0.0, 0
    lengths = [sum(r) for r in mask]
    for w in out["attentions"]:
        for bi, n in enumerate(lengths):
            for q in range(n):
                k = int((w[bi, 0, q] > 0).sum())
                if k >= 3:
                    total += float((w[bi, :, q].max(-1).values - 1.0 / k).mean())
                    count += 1
    excess = total / count
    if excess < 0.1:
        raise SystemExit("%s: attention too uniform (max weight exceeds 1/k by %.3f on average)" % (name, excess))
    return excess


def multimodal_extras(gen):
    """A few tensors of the vision tower and projector, as the hub's Gemma 3 files have them (skipped by name)."""
    t = lambda *shape: torch.randn(*shape, generator=gen, dtype=torch.float32) * 0.1  # noqa: E731
    return {"multi_modal_projector.mm_input_projection_weight": t(8, 32),
            "multi_modal_projector.mm_soft_emb_norm.weight": t(8),
            "vision_tower.vision_model.embeddings.patch_embedding.weight": t(8, 3, 8, 8),
            "vision_tower.vision_model.embeddings.patch_embedding.bias": t(8),
            "vision_tower.vision_model.post_layernorm.weight": t(8)}


def build_all(log=print):
    """{relative path under fixtures/hub: bytes} of every file."""
    files = {}
    toks = {"llama3": byte_level_tokenizer("llama3"), "qwen": byte_level_tokenizer("qwen"),
            "gemma": sentencepiece_tokenizer()}
    gen = torch.Generator().manual_seed(SEED)
    states = {}
    for name, cfg, ref_cfg, dtype, layout, tok_kind, shared in cases(toks):
        d = name + "/"
        tok_json, tok_config, vocab, specials = toks[tok_kind]
        if layout == "sharded":  # llama-tiny's weights in two shards
            state = states["llama-tiny"]
        else:
            model = hm.HfCausalLM(ref_cfg)
            draw(model, gen, offset_norms=model.p["offset"])
            state = model.state_dict()
            states[name] = state
        files[d + "config.json"] = config_bytes(cfg)
        files[d + "tokenizer.json"] = json_bytes(tok_json, indent=2)
        files[d + "tokenizer_config.json"] = json_bytes(tok_config, indent=2)
        dtypes = None if dtype == "F32" else {k: dtype for k in state}
        if layout == "sharded":
            names = list(state)
            first = [k for k in names if k.startswith("model.embed_tokens.") or k.startswith("model.layers.0.")]
            shards = [first, [k for k in names if k not in first]]
            weight_map, total = {}, 0
            for i, keys in enumerate(shards):
                fname = "model-%05d-of-%05d.safetensors" % (i + 1, len(shards))
                files[d + fname] = safetensors_bytes({k: state[k] for k in keys})
                for k in keys:
                    weight_map[k] = fname
                    total += state[k].numel() * state[k].element_size()
            files[d + "model.safetensors.index.json"] = json_bytes(
                {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}, indent=2,
                sort_keys=True)
            continue
        stored = dict(state)
        if layout == "multimodal":  # Gemma3ForConditionalGeneration before transformers 4.52
            stored = {"language_model." + k: v for k, v in state.items()}
            stored.update(multimodal_extras(gen))
            if dtypes is not None:
                dtypes = {k: dtype for k in stored}
        files[d + "model.safetensors"] = safetensors_bytes(stored, dtypes)
        ids, mask = batch(vocab, specials, tok_kind, gen)
        ref = model if dtype == "F32" else hm.HfCausalLM(ref_cfg)
        if dtype != "F32":
            ref.load_state_dict(rounded(state, STORE[dtype]), strict=True)
        doc, out = expected_doc(name, ref_cfg, ref, ids, mask, dtype, shared)
        log("%s: %d parameters, attention max weight exceeds 1/k by %.3f on average" % (
            name, sum(v.numel() for v in state.values()), check_attention(name, out, mask)))
        files[d + "expected.json"] = json_bytes(doc)
    return files


def main():
    files = build_all()
    for rel, data in files.items():
        path = os.path.join(HUB, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    size = sum(len(v) for v in files.values())
    print("wrote %d files, %d bytes, under %s" % (len(files), size, os.path.relpath(HUB)))


if __name__ == "__main__":
    sys.exit(main())
