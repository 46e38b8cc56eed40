"""The PyTorch model a ModelSpec describes, with the engine's parameter names as state_dict keys.

A spec is a dict with camelCase keys (see SPEC_KEYS). Two layouts:

Single stack (encoderLayers == 0), state_dict in this order:
    embed.weight                      (vocabSize, E)
    pos.weight                        (maxSeq, E)        learned positions only
    layers.{i}.self_attn.in_proj_weight / in_proj_bias / out_proj.weight / out_proj.bias
    layers.{i}.linear1.weight / .bias, layers.{i}.linear2.weight / .bias
    layers.{i}.norm1.weight / .bias, layers.{i}.norm2.weight / .bias
    norm.weight / norm.bias           finalNorm only
    head.weight / head.bias           head 'linear'; head 'tied' has head.bias only
Encoder-decoder (encoderLayers > 0), nn.Transformer's names:
    embed.weight, pos.weight (shared by both sides), encoder.layers.{i}.*, encoder.norm.*,
    decoder.layers.{i}.{self_attn,multihead_attn}.*, decoder.layers.{i}.{linear1,linear2,norm1,norm2,norm3}.*,
    decoder.norm.*, head.*

Sinusoidal positions are a non-persistent buffer (no state_dict entry):
    PE[p, 2i] = sin(p / 10000^(2i/E)), PE[p, 2i+1] = cos(p / 10000^(2i/E))
computed in float64 with Python's math and rounded to float32 (the float32 table an engine
holds); with odd E the last (sin) column has no cos partner. Token embeddings are not scaled
by sqrt(E).

forward() runs a float64 copy in train mode with dropout 0 and gradients enabled, so PyTorch
never takes its fast path (which zeroes padded positions instead of computing them).
"""
import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

from common import causal, padding_mask, randomize  # noqa: F401  (randomize re-exported)

SPEC_KEYS = ("vocabSize", "dModel", "heads", "layers", "ffnDim", "maxSeq", "positions", "causal", "norm",
             "finalNorm", "activation", "layerNormEps", "head", "encoderLayers", "residual", "scale")
DEFAULTS = {"encoderLayers": 0, "residual": True, "scale": True}
# Engine ablations PyTorch's layers have no switch for: accepted at these values (PyTorch's
# behaviour), refused at any other, and not part of the normalized spec.
ENGINE_ONLY = {"attnActivation": "none", "layerNorm": True, "typeVocabSize": 0, "embedNorm": False}
CHOICES = {"positions": ("none", "sinusoidal", "learned"), "norm": ("post", "pre"),
           "activation": ("relu", "gelu", "gelu_tanh"), "head": ("none", "linear", "tied")}


def gelu_tanh(x):
    return F.gelu(x, approximate="tanh")


# F.relu and F.gelu are the callables nn.TransformerEncoderLayer recognises itself; 1.13 takes
# any callable, so the tanh approximation is passed as a function.
ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu, "gelu_tanh": gelu_tanh}


class SpecError(ValueError):
    pass


def make_spec(vocab, e, heads, layers, ffn, max_seq, positions, is_causal, norm, final_norm, activation, eps, head,
              encoder_layers=0):
    """A full spec (residual and scale on) from positional fields, for the fixture generators."""
    s = {"vocabSize": vocab, "dModel": e, "heads": heads, "layers": layers, "ffnDim": ffn, "maxSeq": max_seq,
         "positions": positions, "causal": is_causal, "norm": norm, "finalNorm": final_norm,
         "activation": activation, "layerNormEps": eps, "head": head, "encoderLayers": encoder_layers,
         "residual": True, "scale": True}
    return normalize_spec(s)[0]


def normalize_spec(spec):
    """(full spec with keys in SPEC_KEYS order, sorted list of keys that were ignored)."""
    if not isinstance(spec, dict):
        raise SpecError("spec must be a JSON object")
    for key, value in ENGINE_ONLY.items():
        if key in spec and spec[key] != value:
            raise SpecError("PyTorch's layers have no %s other than %r, got %r" % (key, value, spec[key]))
    out = {}
    for key in SPEC_KEYS:
        if key in spec:
            out[key] = spec[key]
        elif key in DEFAULTS:
            out[key] = DEFAULTS[key]
        else:
            raise SpecError("spec is missing %r" % key)

    def is_int(v):
        return isinstance(v, int) and not isinstance(v, bool)

    for key in ("vocabSize", "dModel", "heads", "layers", "ffnDim", "maxSeq"):
        if not is_int(out[key]) or out[key] < 1:
            raise SpecError("%s must be a positive integer, got %r" % (key, out[key]))
    if not is_int(out["encoderLayers"]) or out["encoderLayers"] < 0:
        raise SpecError("encoderLayers must be an integer >= 0, got %r" % (out["encoderLayers"],))
    for key, allowed in CHOICES.items():
        if out[key] not in allowed:
            raise SpecError("%s must be one of %s, got %r" % (key, "|".join(allowed), out[key]))
    for key in ("causal", "finalNorm", "residual", "scale"):
        if not isinstance(out[key], bool):
            raise SpecError("%s must be a boolean, got %r" % (key, out[key]))
    if not out["residual"] or not out["scale"]:
        raise SpecError("PyTorch's layers always have residual connections and 1/sqrt(d) scaling")
    eps = out["layerNormEps"]
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps > 0 or not math.isfinite(eps):
        raise SpecError("layerNormEps must be a positive number, got %r" % (eps,))
    out["layerNormEps"] = float(eps)
    if out["dModel"] % out["heads"]:
        raise SpecError("dModel %d is not divisible by heads %d" % (out["dModel"], out["heads"]))
    return out, sorted(set(spec) - set(SPEC_KEYS) - set(ENGINE_ONLY))


def sinusoidal_table(max_seq, e):
    t = torch.zeros(max_seq, e, dtype=torch.float64)
    for p in range(max_seq):
        for c in range(e):
            angle = p / 10000.0 ** ((c - c % 2) / e)
            t[p, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return t.to(torch.float32)


class TiedHead(nn.Module):
    """The 'tied' head: logits = h @ embed.weight.T + bias; only the bias is its own parameter."""

    def __init__(self, vocab):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, h, embed_weight):
        return F.linear(h, embed_weight, self.bias)


class _Base(nn.Module):
    def _embeddings(self, spec):
        e = spec["dModel"]
        self.embed = nn.Embedding(spec["vocabSize"], e)
        if spec["positions"] == "learned":
            self.pos = nn.Embedding(spec["maxSeq"], e)
        elif spec["positions"] == "sinusoidal":
            self.register_buffer("pe", sinusoidal_table(spec["maxSeq"], e), persistent=False)

    def _head(self, spec):
        if spec["head"] == "linear":
            self.head = nn.Linear(spec["dModel"], spec["vocabSize"])
        elif spec["head"] == "tied":
            self.head = TiedHead(spec["vocabSize"])

    def embed_tokens(self, ids):
        h = self.embed(ids)
        s = ids.shape[1]
        if self.spec["positions"] == "learned":
            h = h + self.pos.weight[:s]
        elif self.spec["positions"] == "sinusoidal":
            h = h + self.pe[:s]
        return h

    def logits(self, hidden):
        if self.spec["head"] == "linear":
            return self.head(hidden)
        if self.spec["head"] == "tied":
            return self.head(hidden, self.embed.weight)
        return None

    def _layer_args(self):
        s = self.spec
        return dict(d_model=s["dModel"], nhead=s["heads"], dim_feedforward=s["ffnDim"], dropout=0.0,
                    activation=ACTIVATIONS[s["activation"]], layer_norm_eps=s["layerNormEps"], batch_first=True,
                    norm_first=s["norm"] == "pre")

    def _final_norm(self):
        return nn.LayerNorm(self.spec["dModel"], eps=self.spec["layerNormEps"]) if self.spec["finalNorm"] else None


class SingleStack(_Base):
    def __init__(self, spec):
        super().__init__()
        self.spec = spec
        self._embeddings(spec)
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(**self._layer_args()) for _ in range(spec["layers"])])
        if spec["finalNorm"]:
            self.norm = self._final_norm()
        self._head(spec)

    def forward(self, ids, lengths):
        """(hidden (B,S,E) after the final norm, logits (B,S,V) or None, [layer outputs (B,S,E)])."""
        s = ids.shape[1]
        h = self.embed_tokens(ids)
        mask = causal(s, s) if self.spec["causal"] else None
        kpm = padding_mask(lengths, s)
        outputs = []
        for layer in self.layers:
            h = layer(h, src_mask=mask, src_key_padding_mask=kpm)
            outputs.append(h)
        if self.spec["finalNorm"]:
            h = self.norm(h)
        return h, self.logits(h), outputs


class EncoderDecoder(_Base):
    def __init__(self, spec):
        super().__init__()
        self.spec = spec
        self._embeddings(spec)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(**self._layer_args()), spec["encoderLayers"],
                                             norm=self._final_norm(), enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(**self._layer_args()), spec["layers"],
                                             norm=self._final_norm())
        self._head(spec)

    def forward(self, src_ids, src_lengths, tgt_ids, tgt_lengths):
        """(hidden, logits or None, [decoder layer outputs], memory (B,Ss,E) after encoder.norm)."""
        ss, ts = src_ids.shape[1], tgt_ids.shape[1]
        src_kpm = padding_mask(src_lengths, ss)
        memory = self.encoder(self.embed_tokens(src_ids), src_key_padding_mask=src_kpm)
        outputs = []
        hooks = [layer.register_forward_hook(lambda _m, _i, out: outputs.append(out)) for layer in self.decoder.layers]
        try:
            h = self.decoder(self.embed_tokens(tgt_ids), memory, tgt_mask=causal(ts, ts) if self.spec["causal"] else None,
                             tgt_key_padding_mask=padding_mask(tgt_lengths, ts), memory_key_padding_mask=src_kpm)
        finally:
            for hook in hooks:
                hook.remove()
        return h, self.logits(h), outputs, memory


def build(spec):
    spec, _ = normalize_spec(spec)
    return (EncoderDecoder if spec["encoderLayers"] > 0 else SingleStack)(spec)


def parameter_list(module):
    return [{"name": k, "shape": list(v.shape)} for k, v in module.state_dict().items()]


def check_inputs(spec, inputs):
    """Validates {"batch","seq","ids","lengths"} (+ source_* for enc-dec); returns ids/lengths tensors."""
    def side(prefix, seq_key):
        b, s = inputs.get("batch"), inputs.get(seq_key)
        ids, lengths = inputs.get(prefix + "ids"), inputs.get(prefix + "lengths")
        for key, v in (("batch", b), (seq_key, s)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise SpecError("%s must be a positive integer, got %r" % (key, v))
        if s > spec["maxSeq"]:
            raise SpecError("%s %d exceeds maxSeq %d" % (seq_key, s, spec["maxSeq"]))
        if not isinstance(ids, list) or len(ids) != b * s:
            raise SpecError("%sids must be a list of batch*%s = %d ints" % (prefix, seq_key, b * s))
        if not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < spec["vocabSize"] for i in ids):
            raise SpecError("%sids must be ints in [0, vocabSize)" % prefix)
        if not isinstance(lengths, list) or len(lengths) != b or \
                not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= s for n in lengths):
            raise SpecError("%slengths must be %d ints in [1, %s]" % (prefix, b, seq_key))
        return torch.tensor(ids, dtype=torch.long).reshape(b, s), list(lengths)

    tgt = side("", "seq")
    if spec["encoderLayers"] > 0:
        return side("source_", "source_seq") + tgt
    return tgt


def forward(model, inputs):
    """The float64 forward of a float32 model for JSON-style inputs (see check_inputs).

    Returns {"hidden", "logits" (or None), "layer_outputs", "memory" (enc-dec only, else None)},
    float64 tensors. The model itself is left untouched (a float64 copy runs).
    """
    args = check_inputs(model.spec, inputs)
    md = copy.deepcopy(model).double().train()
    with torch.enable_grad():
        out = md(*args)
    hidden, logits, layers = out[0], out[1], out[2]
    memory = out[3] if len(out) > 3 else None
    detach = lambda t: None if t is None else t.detach()  # noqa: E731
    return {"hidden": detach(hidden), "logits": detach(logits), "layer_outputs": [detach(t) for t in layers],
            "memory": detach(memory)}


def random_inputs(spec, gen, batch, seq, lengths, source_seq=None, source_lengths=None):
    """Random token ids (0 at padded positions) in the JSON layout forward() takes."""
    def ids(s, lens):
        t = torch.randint(0, spec["vocabSize"], (batch, s), generator=gen)
        t[padding_mask(lens, s)] = 0
        return [int(v) for v in t.reshape(-1).tolist()]

    inputs = {"batch": batch, "seq": seq}
    if spec["encoderLayers"] > 0:
        inputs.update({"source_seq": source_seq, "source_ids": ids(source_seq, source_lengths),
                       "source_lengths": list(source_lengths)})
    inputs.update({"ids": ids(seq, lengths), "lengths": list(lengths)})
    return inputs
