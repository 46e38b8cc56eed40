"""PyTorch references for the "modern block": Hugging Face's Llama, Qwen 2, Qwen 3 and Gemma 3 (text)
causal LMs, and the engine's own spec-driven model (ALiBi and every other option of the contract).

Written by us after the semantics of transformers' modeling_llama.py, modeling_qwen2.py,
modeling_qwen3.py, modeling_gemma3.py and modeling_rope_utils.py (transformers is not
installed; no code copied). Three parts:

1. HfCausalLM(config): LlamaForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM /
   Gemma3ForCausalLM, chosen by config["model_type"] ("llama", "qwen2", "qwen3", "gemma3_text"),
   taking the config.json dict. state_dict() keys are the hub names, in transformers' order:
     model.embed_tokens.weight (V,E)
     model.layers.{i}.self_attn.q_proj.weight (H*d,E) [.bias], k_proj (Hkv*d,E) [.bias],
       v_proj (Hkv*d,E) [.bias], o_proj.weight (E,H*d) [.bias],
       q_norm.weight (d), k_norm.weight (d)                    Qwen 3, Gemma 3
     model.layers.{i}.mlp.gate_proj.weight (F,E) [.bias], up_proj (F,E) [.bias], down_proj (E,F) [.bias]
     model.layers.{i}.input_layernorm.weight, .post_attention_layernorm.weight (E)
       .pre_feedforward_layernorm.weight, .post_feedforward_layernorm.weight       Gemma 3
     model.norm.weight (E)
     lm_head.weight (V,E)                                      only when tie_word_embeddings is false
   Per family (config keys HF reads; defaults as transformers'):
     llama: q/k/v/o biases = attention_bias; MLP biases = mlp_bias; act = hidden_act; RMSNorm
            x * rsqrt(mean(x^2) + eps) * w; d = head_dim or E / H; no window.
     qwen2: q/k/v biases always, o_proj none, MLP none; a window on layers i >= max_window_layers
            when use_sliding_window (layer_types when given).
     qwen3: as llama with attention_bias for q/k/v/o, no MLP biases, plus q_norm / k_norm
            (RMSNorm over each head's d, before RoPE); the window rule of qwen2.
     gemma3_text: embeddings * sqrt(E) (as a float32 scalar, Gemma3TextScaledWordEmbedding);
            every RMSNorm scales by (1 + w); sandwich norms (input_layernorm -> attention ->
            post_attention_layernorm -> + residual; pre_feedforward_layernorm -> MLP ->
            post_feedforward_layernorm -> + residual); q_norm/k_norm; scores * query_pre_attn_scalar^-0.5;
            act = hidden_activation (gelu_pytorch_tanh); no MLP biases; layer i is
            "full_attention" when (i + 1) % sliding_window_pattern == 0, else "sliding_attention"
            (configuration_gemma3.py; layer_types when given); sliding layers rotate with
            rope_local_base_freq and no rope_scaling, full layers with rope_theta and rope_scaling
            (modular_gemma3.py, Gemma3TextConfig.convert_rope_params_to_dict).
   Extras a config may carry (not in these four HF classes; they follow other HF models):
     partial_rotary_factor: only the first int(d * factor) dimensions of each head rotate
            (rotate-half inside them; the rest pass), as StableLM / Phi / GPT-NeoX;
     use_bidirectional_attention: no causal mask (Gemma 3's encoder flag); a sliding layer then
            sees |i - j| < sliding_window, where sliding_window is the value Gemma3TextConfig
            STORES (it halves the hub value: w // 2 + 1); here the dict's value is used as is.
   RoPE (rotate-half, pairs (k, k + rot/2)): inv_freq_k = theta^(-2k / rot); rope_scaling
   {"rope_type": "linear", "factor"} divides it by factor; "llama3" as _compute_llama3_parameters
   (factor, low_freq_factor, high_freq_factor, original_max_position_embeddings). Positions are
   0..S-1 on every row. All of it in float64 (HF computes inv_freq and cos/sin in float32).
   Sliding window (masking_utils.sliding_window_overlay): key j visible from query i when
   i - w < j (and j <= i, causal).

2. SpecModel(spec): the engine's contract (core/include/attention/spec.hpp), written from that
   text with the engine's names: a second formulation (explicit pairwise rotation, a
   head-to-group index instead of repeat_kv, masks from loops) used as the reference for what HF
   has no class for (ALiBi, Press et al.), and by selfcheck_modern.py against HfCausalLM.

3. The mapping: spec_from_config(config, max_seq) -> our spec JSON (every field),
   ours_from_hf(hf_state) / hf_from_ours(our_state, config) -> parameters by name, in OUR order
   (see our_names()).

forward() of both models: (input_ids (B,S) long, attention_mask (B,S), 1 = real, 0 = padding
on the right) -> {"layer_outputs": [each layer's output (B,S,E)], "attentions": [per layer
(B,H,S,S) softmax weights], "hidden": after the final norm, "logits": (B,S,V)}. Blocked scores
are -inf (HF adds finfo.min: the same weights on any row with one visible key; the fixtures have
no row without one).
"""
import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

FAMILIES = ("llama", "qwen2", "qwen3", "gemma3_text")


def gelu_tanh(x):
    return F.gelu(x, approximate="tanh")


# HF's ACT2FN names -> (function, our spec's activation name)
ACTIVATIONS = {"silu": (F.silu, "silu"), "swish": (F.silu, "silu"), "gelu_pytorch_tanh": (gelu_tanh, "gelu_tanh"),
               "gelu_new": (gelu_tanh, "gelu_tanh"), "gelu": (F.gelu, "gelu"), "relu": (F.relu, "relu")}
OUR_ACTIVATIONS = {"silu": F.silu, "gelu_tanh": gelu_tanh, "gelu": F.gelu, "relu": F.relu}


class ConfigError(ValueError):
    pass


# ---------------------------------------------------------------------------------------------
# The architecture a config describes

def plan(config):
    """The architecture of an HF config dict, resolved with transformers' defaults."""
    family = config.get("model_type")
    if family not in FAMILIES:
        raise ConfigError("model_type must be one of %s, got %r" % ("|".join(FAMILIES), family))
    gemma = family == "gemma3_text"
    e, h = config["hidden_size"], config["num_attention_heads"]
    hkv = config.get("num_key_value_heads") or h
    d = config.get("head_dim") or e // h
    layers = config["num_hidden_layers"]
    act_name = config.get("hidden_activation" if gemma else "hidden_act", "gelu_pytorch_tanh" if gemma else "silu")
    if act_name not in ACTIVATIONS:
        raise ConfigError("unsupported activation %r" % act_name)
    attention_bias = bool(config.get("attention_bias", False))
    p = {
        "family": family, "vocab": config["vocab_size"], "e": e, "h": h, "hkv": hkv, "d": d,
        "ffn": config["intermediate_size"], "layers": layers, "eps": float(config.get("rms_norm_eps", 1e-6)),
        "act": act_name,
        "q_bias": True if family == "qwen2" else attention_bias,
        "o_bias": False if family == "qwen2" else attention_bias,
        "mlp_bias": bool(config.get("mlp_bias", False)) if family == "llama" else False,
        "qk_norm": family in ("qwen3", "gemma3_text"),
        "offset": gemma, "sandwich": gemma, "embed_scale": gemma,
        "scaling": (config.get("query_pre_attn_scalar", 256) if gemma else d) ** -0.5,
        "query_pre_attn_scalar": config.get("query_pre_attn_scalar", 256) if gemma else None,
        "theta": float(config.get("rope_theta", 1e6 if gemma else 10000.0)),
        "rot": int(d * config.get("partial_rotary_factor", 1.0)),
        "rope_scaling": config.get("rope_scaling"),
        "local_theta": float(config.get("rope_local_base_freq", 10000.0)) if gemma else None,
        "causal": not config.get("use_bidirectional_attention", False),
        "tied": bool(config.get("tie_word_embeddings", gemma)),
        "window": config.get("sliding_window"),
    }
    if h % hkv:
        raise ConfigError("num_attention_heads must be a multiple of num_key_value_heads")
    for key in ("attn_logit_softcapping", "final_logit_softcapping"):  # Gemma 2's; not in our spec
        if config.get(key) is not None:
            raise ConfigError("%s is not supported, got %r" % (key, config[key]))
    if p["rot"] <= 0 or p["rot"] % 2:
        raise ConfigError("rotary dimensions %d must be positive and even" % p["rot"])
    types = config.get("layer_types")
    if types is None:
        if gemma:
            n = config.get("sliding_window_pattern", 6)
            types = ["sliding_attention" if (i + 1) % n else "full_attention" for i in range(layers)]
        elif family in ("qwen2", "qwen3") and config.get("use_sliding_window", False):
            m = config.get("max_window_layers", layers)
            types = ["sliding_attention" if i >= m else "full_attention" for i in range(layers)]
        else:
            types = ["full_attention"] * layers
    if len(types) != layers or any(t not in ("full_attention", "sliding_attention") for t in types):
        raise ConfigError("layer_types must be %d of full_attention|sliding_attention" % layers)
    if "sliding_attention" in types and not (isinstance(p["window"], int) and p["window"] >= 1):
        raise ConfigError("a sliding layer needs sliding_window >= 1")
    p["layer_types"] = list(types)
    rs = p["rope_scaling"]
    if rs is not None and rs.get("rope_type", rs.get("type")) not in ("default", "linear", "llama3"):
        raise ConfigError("rope_scaling type must be default, linear or llama3: %r" % (rs,))
    return p


def rope_kind(rs):
    return "none" if rs is None or rs.get("rope_type", rs.get("type")) == "default" else rs.get("rope_type", rs.get("type"))


def inv_freq(theta, rot, rs):
    """HF's inverse frequencies (rotate-half layout), float64."""
    f = 1.0 / theta ** (torch.arange(0, rot, 2, dtype=torch.float64) / rot)
    kind = rope_kind(rs)
    if kind == "linear":
        return f / rs["factor"]
    if kind == "llama3":
        factor, low, high = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
        old = rs["original_max_position_embeddings"]
        wavelen = 2 * math.pi / f
        long_wl, short_wl = old / low, old / high
        scaled = torch.where(wavelen > long_wl, f / factor, f)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = (wavelen >= short_wl) & (wavelen <= long_wl)
        return torch.where(medium, smoothed, scaled)
    return f


def llama3_classes(theta, rot, rs):
    """How many frequencies llama3 scaling keeps / smooths / divides (for the fixtures' coverage)."""
    f = 1.0 / theta ** (torch.arange(0, rot, 2, dtype=torch.float64) / rot)
    wavelen = 2 * math.pi / f
    old = rs["original_max_position_embeddings"]
    keep = int((wavelen < old / rs["high_freq_factor"]).sum())
    divide = int((wavelen > old / rs["low_freq_factor"]).sum())
    return keep, len(f) - keep - divide, divide


# ---------------------------------------------------------------------------------------------
# 1. The Hugging Face models

class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) * w, or * (1 + w) for Gemma (its weight starts at 0)."""

    def __init__(self, dim, eps, offset):
        super().__init__()
        self.eps, self.offset = eps, offset
        self.weight = nn.Parameter(torch.zeros(dim) if offset else torch.ones(dim))

    def forward(self, x):
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return y * (1.0 + self.weight) if self.offset else y * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x, cos, sin, rot):
    """x (B,H,S,d): the first rot dimensions rotate (HF apply_rotary_pos_emb), the rest pass."""
    r, rest = x[..., :rot], x[..., rot:]
    return torch.cat((r * cos + rotate_half(r) * sin, rest), dim=-1)


def cos_sin(freq, seq, dtype):
    angles = torch.arange(seq, dtype=torch.float64)[:, None] * freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def allowed_keys(lengths, seq, causal, window):
    """(B,S,S) bool, True = query i may read key j: padding, causal and (window > 0) the window."""
    i = torch.arange(seq)[:, None]
    j = torch.arange(seq)[None, :]
    ok = torch.ones(seq, seq, dtype=torch.bool)
    if causal:  # out of place (not &=), so torch.onnx.export can trace it (bench/make_modern.py)
        ok = ok & (j <= i)
    if window:
        ok = ok & (j > i - window)
        if not causal:
            ok = ok & (j < i + window)
    real = torch.arange(seq)[None, :] < torch.as_tensor(lengths)[:, None]  # (B,S) keys
    return ok[None, :, :] & real[:, None, :]


class HfAttention(nn.Module):
    def __init__(self, p, layer):
        super().__init__()
        e, h, hkv, d = p["e"], p["h"], p["hkv"], p["d"]
        self.p, self.layer = p, layer
        self.q_proj = nn.Linear(e, h * d, bias=p["q_bias"])
        self.k_proj = nn.Linear(e, hkv * d, bias=p["q_bias"])
        self.v_proj = nn.Linear(e, hkv * d, bias=p["q_bias"])
        self.o_proj = nn.Linear(h * d, e, bias=p["o_bias"])
        if p["qk_norm"]:
            self.q_norm = RMSNorm(d, p["eps"], p["offset"])
            self.k_norm = RMSNorm(d, p["eps"], p["offset"])

    def forward(self, x, cos, sin, allowed):
        p = self.p
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, -1, p["d"])
        k = self.k_proj(x).view(b, s, -1, p["d"])
        v = self.v_proj(x).view(b, s, -1, p["d"]).transpose(1, 2)
        if p["qk_norm"]:  # on (B,S,heads,d): over each head's d
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        q, k = apply_rope(q, cos, sin, p["rot"]), apply_rope(k, cos, sin, p["rot"])
        group = p["h"] // p["hkv"]
        k = k[:, :, None].expand(b, p["hkv"], group, s, p["d"]).reshape(b, p["h"], s, p["d"])  # repeat_kv
        v = v[:, :, None].expand(b, p["hkv"], group, s, p["d"]).reshape(b, p["h"], s, p["d"])
        scores = torch.matmul(q, k.transpose(2, 3)) * p["scaling"]
        scores = scores.masked_fill(~allowed[:, None], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        out = torch.matmul(weights, v).transpose(1, 2).reshape(b, s, p["h"] * p["d"])
        return self.o_proj(out), weights


class HfMlp(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.gate_proj = nn.Linear(p["e"], p["ffn"], bias=p["mlp_bias"])
        self.up_proj = nn.Linear(p["e"], p["ffn"], bias=p["mlp_bias"])
        self.down_proj = nn.Linear(p["ffn"], p["e"], bias=p["mlp_bias"])
        self.act = ACTIVATIONS[p["act"]][0]

    def forward(self, x):
        return self.down_proj(self.act(self.gate_proj(x)) * self.up_proj(x))


class HfDecoderLayer(nn.Module):
    def __init__(self, p, layer):
        super().__init__()
        self.p = p
        self.self_attn = HfAttention(p, layer)
        self.mlp = HfMlp(p)
        self.input_layernorm = RMSNorm(p["e"], p["eps"], p["offset"])
        self.post_attention_layernorm = RMSNorm(p["e"], p["eps"], p["offset"])
        if p["sandwich"]:
            self.pre_feedforward_layernorm = RMSNorm(p["e"], p["eps"], p["offset"])
            self.post_feedforward_layernorm = RMSNorm(p["e"], p["eps"], p["offset"])

    def forward(self, x, cos, sin, allowed):
        a, w = self.self_attn(self.input_layernorm(x), cos, sin, allowed)
        if self.p["sandwich"]:
            x = x + self.post_attention_layernorm(a)
            return x + self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(x))), w
        x = x + a
        return x + self.mlp(self.post_attention_layernorm(x)), w


class HfModel(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.embed_tokens = nn.Embedding(p["vocab"], p["e"])
        self.layers = nn.ModuleList([HfDecoderLayer(p, i) for i in range(p["layers"])])
        self.norm = RMSNorm(p["e"], p["eps"], p["offset"])


class HfCausalLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = copy.deepcopy(config)
        self.p = plan(config)
        self.model = HfModel(self.p)
        if not self.p["tied"]:
            self.lm_head = nn.Linear(self.p["e"], self.p["vocab"], bias=False)

    def forward(self, input_ids, attention_mask):
        p = self.p
        s = input_ids.shape[1]
        h = self.model.embed_tokens(input_ids)
        if p["embed_scale"]:  # a float32 scalar buffer in HF, cast to the weights' dtype
            h = h * torch.tensor(p["e"] ** 0.5, dtype=torch.float32).to(h.dtype)
        lengths = attention_mask.sum(-1).tolist()
        assert torch.equal(attention_mask, (torch.arange(s)[None, :] < torch.tensor(lengths)[:, None]).to(
            attention_mask.dtype)), "right padding only"
        rope = {"full_attention": cos_sin(inv_freq(p["theta"], p["rot"], p["rope_scaling"]), s, h.dtype)}
        rope["sliding_attention"] = rope["full_attention"] if p["local_theta"] is None else \
            cos_sin(inv_freq(p["local_theta"], p["rot"], None), s, h.dtype)
        masks = {"full_attention": allowed_keys(lengths, s, p["causal"], 0),
                 "sliding_attention": allowed_keys(lengths, s, p["causal"], p["window"] or 0)}
        outputs, weights = [], []
        for layer, kind in zip(self.model.layers, p["layer_types"]):
            h, w = layer(h, *rope[kind], masks[kind])
            outputs.append(h)
            weights.append(w)
        hidden = self.model.norm(h)
        logits = F.linear(hidden, self.model.embed_tokens.weight if p["tied"] else self.lm_head.weight)
        return {"layer_outputs": outputs, "attentions": weights, "hidden": hidden, "logits": logits}


# ---------------------------------------------------------------------------------------------
# 2. The engine's contract, with its names

def alibi_slopes(heads):
    """Press et al.: 2^(-8(h+1)/n) for n a power of two; else the closest power of two's slopes,
    then every other slope of twice as many."""
    def power_of_two(n):
        return [2.0 ** (-8.0 * (i + 1) / n) for i in range(n)]
    n = 2 ** int(math.floor(math.log2(heads)))
    return power_of_two(n) + power_of_two(2 * n)[0::2][: heads - n]


def head_dim(spec):
    return spec["headDim"] or spec["dModel"] // spec["heads"]


def local_layer(spec, layer):
    n = spec["windowPattern"]
    return spec["window"] > 0 and (n <= 1 or (layer + 1) % n != 0)


class _Weight(nn.Module):
    def __init__(self, *shape, bias=None):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(*shape))
        if bias is not None:
            self.bias = nn.Parameter(torch.zeros(bias))


class _SelfAttention(nn.Module):
    def __init__(self, spec):
        super().__init__()
        e, d = spec["dModel"], head_dim(spec)
        hq, hkv = spec["heads"] * d, (spec["kvHeads"] or spec["heads"]) * d
        self.in_proj_weight = nn.Parameter(torch.zeros(hq + 2 * hkv, e))
        if spec["qkvBias"]:
            self.in_proj_bias = nn.Parameter(torch.zeros(hq + 2 * hkv))
        if spec["qkNorm"]:
            self.q_norm = _Weight(d)
            self.k_norm = _Weight(d)
        self.out_proj = _Weight(e, hq, bias=e if spec["outBias"] else None)


class _Layer(nn.Module):
    def __init__(self, spec):
        super().__init__()
        e, f = spec["dModel"], spec["ffnDim"]
        up = 2 * f if spec["ffn"] == "gated" else f
        self.self_attn = _SelfAttention(spec)
        self.linear1 = _Weight(up, e, bias=up if spec["mlpBias"] else None)
        self.linear2 = _Weight(e, f, bias=e if spec["mlpBias"] else None)
        norm_bias = e if spec["normType"] == "layernorm" else None
        self.norm1 = _Weight(e, bias=norm_bias)
        self.norm2 = _Weight(e, bias=norm_bias)
        if spec["norm"] == "sandwich":
            self.post_norm1 = _Weight(e, bias=norm_bias)
            self.post_norm2 = _Weight(e, bias=norm_bias)


class SpecModel(nn.Module):
    """A single causal or encoder stack of the modern block, parameters named as the engine's, in
    its order: embed; per layer self_attn.in_proj_weight, in_proj_bias, q_norm, k_norm, out_proj,
    linear1, linear2, norm1, norm2, post_norm1, post_norm2; norm; head.weight; head.bias."""

    def __init__(self, spec):
        super().__init__()
        check_spec(spec)
        self.spec = dict(spec)
        e, v = spec["dModel"], spec["vocabSize"]
        self.embed = _Weight(v, e)
        self.layers = nn.ModuleList([_Layer(spec) for _ in range(spec["layers"])])
        if spec["finalNorm"]:
            self.norm = _Weight(e, bias=e if spec["normType"] == "layernorm" else None)
        if spec["head"] in ("linear", "tied") and (spec["head"] == "linear" or spec["headBias"]):
            self.head = nn.Module()
            if spec["head"] == "linear":
                self.head.weight = nn.Parameter(torch.zeros(v, e))
            if spec["headBias"]:
                self.head.bias = nn.Parameter(torch.zeros(v))

    def _norm(self, m, x):
        s = self.spec
        if s["normType"] == "layernorm":
            return F.layer_norm(x, (x.shape[-1],), m.weight, m.bias, s["layerNormEps"])
        return self._rms(m, x)

    def _rms(self, m, x):
        s = self.spec
        ms = (x * x).mean(-1, keepdim=True)
        scale = m.weight + 1.0 if s["normType"] == "rmsnorm_offset" else m.weight
        return x / torch.sqrt(ms + s["layerNormEps"]) * scale

    def _rotate(self, x, layer):
        """x (B,heads,S,d): pair (k, k + rot/2) of the first rot dims turns by pos * inv_freq_k."""
        s = self.spec
        rot = int(head_dim(s) * s["ropeFraction"])
        theta, scaling = s["ropeTheta"], s["ropeScaling"]
        if local_layer(s, layer) and s["ropeLocalTheta"] > 0:
            theta, scaling = s["ropeLocalTheta"], "none"
        half = rot // 2
        freq = []
        for k in range(half):
            f = theta ** (-2.0 * k / rot)
            if scaling == "linear":
                f /= s["ropeFactor"]
            elif scaling == "llama3":
                wavelength = 2 * math.pi / f
                old = s["ropeOriginalContext"]
                lo, hi = s["ropeLowFreqFactor"], s["ropeHighFreqFactor"]
                if wavelength > old / lo:
                    f /= s["ropeFactor"]
                elif wavelength >= old / hi:
                    t = (old / wavelength - lo) / (hi - lo)
                    f = (1 - t) * f / s["ropeFactor"] + t * f
            freq.append(f)
        out = x.clone()
        for pos in range(x.shape[2]):
            for k in range(half):
                c, sn = math.cos(pos * freq[k]), math.sin(pos * freq[k])
                a, b = x[:, :, pos, k], x[:, :, pos, k + half]
                out[:, :, pos, k] = a * c - b * sn
                out[:, :, pos, k + half] = b * c + a * sn
        return out

    def _attention(self, m, x, lengths, layer):
        s = self.spec
        bsz, seq, _ = x.shape
        h, d = s["heads"], head_dim(s)
        hkv = s["kvHeads"] or h
        qkv = F.linear(x, m.in_proj_weight, m.in_proj_bias if s["qkvBias"] else None)
        q = qkv[..., : h * d].reshape(bsz, seq, h, d)
        k = qkv[..., h * d: (h + hkv) * d].reshape(bsz, seq, hkv, d)
        v = qkv[..., (h + hkv) * d:].reshape(bsz, seq, hkv, d).permute(0, 2, 1, 3)
        if s["qkNorm"]:  # always an RMSNorm; (1 + w) when the model's norms are (Gemma 3's q_norm / k_norm)
            q, k = self._rms(m.q_norm, q), self._rms(m.k_norm, k)
        q, k = q.permute(0, 2, 1, 3), k.permute(0, 2, 1, 3)
        if s["positions"] == "rope":
            q, k = self._rotate(q, layer), self._rotate(k, layer)
        group = [hd // (h // hkv) for hd in range(h)]  # query head -> its K/V head
        scores = torch.einsum("bhid,bhjd->bhij", q, k[:, group])
        scores = scores / math.sqrt(s["queryPreAttnScalar"] or d)
        if s["positions"] == "alibi":
            dist = (torch.arange(seq)[:, None] - torch.arange(seq)[None, :]).abs().to(scores.dtype)
            scores = scores - torch.tensor(alibi_slopes(h), dtype=scores.dtype)[:, None, None] * dist
        window = s["window"] if local_layer(s, layer) else 0
        blocked = torch.zeros(bsz, seq, seq, dtype=torch.bool)
        for b in range(bsz):
            for i in range(seq):
                for j in range(seq):
                    blocked[b, i, j] = (j >= lengths[b] or (s["causal"] and j > i) or
                                        (window > 0 and (i - window >= j or (not s["causal"] and j >= i + window))))
        weights = torch.softmax(scores.masked_fill(blocked[:, None], float("-inf")), dim=-1)
        context = torch.einsum("bhij,bhjd->bihd", weights, v[:, group]).reshape(bsz, seq, h * d)
        return F.linear(context, m.out_proj.weight, m.out_proj.bias if s["outBias"] else None), weights

    def _ffn(self, layer, x):
        s = self.spec
        y = F.linear(x, layer.linear1.weight, layer.linear1.bias if s["mlpBias"] else None)
        act = OUR_ACTIVATIONS[s["activation"]]
        if s["ffn"] == "gated":
            f = s["ffnDim"]
            y = act(y[..., :f]) * y[..., f:]
        else:
            y = act(y)
        return F.linear(y, layer.linear2.weight, layer.linear2.bias if s["mlpBias"] else None)

    def forward(self, input_ids, attention_mask):
        s = self.spec
        lengths = [int(n) for n in attention_mask.sum(-1).tolist()]
        h = self.embed.weight[input_ids]
        if s["embedScale"]:
            h = h * float(torch.tensor(math.sqrt(s["dModel"]), dtype=torch.float32))
        outputs, weights = [], []
        for i, layer in enumerate(self.layers):
            sandwich = s["norm"] == "sandwich"
            if s["norm"] == "post":
                a, w = self._attention(layer.self_attn, h, lengths, i)
                h = self._norm(layer.norm1, h + a)
                h = self._norm(layer.norm2, h + self._ffn(layer, h))
            else:
                a, w = self._attention(layer.self_attn, self._norm(layer.norm1, h), lengths, i)
                h = h + (self._norm(layer.post_norm1, a) if sandwich else a)
                f = self._ffn(layer, self._norm(layer.norm2, h))
                h = h + (self._norm(layer.post_norm2, f) if sandwich else f)
            outputs.append(h)
            weights.append(w)
        hidden = self._norm(self.norm, h) if s["finalNorm"] else h
        logits = None
        if s["head"] in ("linear", "tied"):
            weight = self.head.weight if s["head"] == "linear" else self.embed.weight
            logits = F.linear(hidden, weight, self.head.bias if s["headBias"] else None)
        return {"layer_outputs": outputs, "attentions": weights, "hidden": hidden, "logits": logits}


# The whole spec as the engine's schema lists it (spec.cpp), with its defaults.
SPEC_DEFAULTS = {
    "vocabSize": 64, "dModel": 64, "heads": 4, "layers": 2, "ffnDim": 256, "maxSeq": 128, "positions": "sinusoidal",
    "causal": False, "norm": "post", "finalNorm": False, "activation": "relu", "layerNormEps": 1e-5,
    "head": "linear", "encoderLayers": 0, "residual": True, "scale": True, "attnActivation": "none",
    "layerNorm": True, "typeVocabSize": 0, "embedNorm": False, "kvHeads": 0, "headDim": 0, "ropeTheta": 10000.0,
    "ropeFraction": 1.0, "ropeScaling": "none", "ropeFactor": 1.0, "ropeLowFreqFactor": 1.0,
    "ropeHighFreqFactor": 4.0, "ropeOriginalContext": 8192, "window": 0, "windowPattern": 0, "ropeLocalTheta": 0.0,
    "normType": "layernorm", "ffn": "standard", "qkNorm": False, "qkvBias": True, "outBias": True, "mlpBias": True,
    "headBias": True, "embedScale": False, "queryPreAttnScalar": 0.0,
}


def full_spec(**fields):
    unknown = set(fields) - set(SPEC_DEFAULTS)
    if unknown:
        raise ConfigError("unknown spec fields %s" % sorted(unknown))
    spec = dict(SPEC_DEFAULTS)
    spec.update(fields)
    check_spec(spec)
    return spec


def check_spec(spec):
    """What SpecModel supports: a single stack, no ablations, the modern options."""
    if set(spec) != set(SPEC_DEFAULTS):
        raise ConfigError("spec keys differ: %s" % sorted(set(spec) ^ set(SPEC_DEFAULTS)))
    fixed = {"encoderLayers": 0, "residual": True, "scale": True, "attnActivation": "none", "layerNorm": True,
             "typeVocabSize": 0, "embedNorm": False}
    for k, v in fixed.items():
        if spec[k] != v:
            raise ConfigError("SpecModel needs %s = %r" % (k, v))
    if spec["positions"] not in ("rope", "alibi", "none"):
        raise ConfigError("SpecModel covers positions rope|alibi|none")
    h, hkv = spec["heads"], spec["kvHeads"] or spec["heads"]
    if h % hkv or (not spec["headDim"] and spec["dModel"] % h):
        raise ConfigError("heads / kvHeads / dModel do not divide")
    if spec["positions"] == "rope":
        rot = head_dim(spec) * spec["ropeFraction"]
        if rot != int(rot) or int(rot) <= 0 or int(rot) % 2:
            raise ConfigError("rotary dimensions must be a positive even number")


# ---------------------------------------------------------------------------------------------
# 3. The mapping

def spec_from_config(config, max_seq):
    """Our spec JSON (every field) for an HF config."""
    p = plan(config)
    types = p["layer_types"]
    window, pattern = 0, 0
    if "sliding_attention" in types:
        window = p["window"]
        if "full_attention" in types:
            pattern = next((n for n in range(2, p["layers"] + 2)
                            if all((t == "full_attention") == ((i + 1) % n == 0) for i, t in enumerate(types))), None)
            if pattern is None:
                raise ConfigError("layer_types %r is not 'every Nth layer global'" % (types,))
    rs = p["rope_scaling"]
    kind = rope_kind(rs)
    fraction = p["rot"] / p["d"]
    spec = full_spec(
        vocabSize=p["vocab"], dModel=p["e"], heads=p["h"], layers=p["layers"], ffnDim=p["ffn"], maxSeq=max_seq,
        positions="rope", causal=p["causal"], norm="sandwich" if p["sandwich"] else "pre", finalNorm=True,
        activation=ACTIVATIONS[p["act"]][1], layerNormEps=p["eps"], head="tied" if p["tied"] else "linear",
        kvHeads=p["hkv"] if p["hkv"] != p["h"] else 0, headDim=config.get("head_dim") or 0,
        ropeTheta=p["theta"], ropeFraction=fraction, ropeScaling=kind,
        ropeFactor=float(rs["factor"]) if kind != "none" else 1.0,
        ropeLowFreqFactor=float(rs["low_freq_factor"]) if kind == "llama3" else 1.0,
        ropeHighFreqFactor=float(rs["high_freq_factor"]) if kind == "llama3" else 4.0,
        ropeOriginalContext=int(rs["original_max_position_embeddings"]) if kind == "llama3" else 8192,
        window=window, windowPattern=pattern,
        ropeLocalTheta=p["local_theta"] if (p["local_theta"] is not None and window) else 0.0,
        normType="rmsnorm_offset" if p["offset"] else "rmsnorm", ffn="gated", qkNorm=p["qk_norm"],
        qkvBias=p["q_bias"], outBias=p["o_bias"], mlpBias=p["mlp_bias"], headBias=False,
        embedScale=p["embed_scale"],
        queryPreAttnScalar=float(p["query_pre_attn_scalar"]) if p["query_pre_attn_scalar"] is not None else 0.0)
    return spec


def hf_sources(config):
    """[(our name, [HF names whose rows are concatenated, in order])], in OUR parameter order."""
    p = plan(config)
    out = [("embed.weight", ["model.embed_tokens.weight"])]
    for i in range(p["layers"]):
        a, m, L = "model.layers.%d.self_attn." % i, "model.layers.%d.mlp." % i, "model.layers.%d." % i
        o = "layers.%d." % i
        out.append((o + "self_attn.in_proj_weight", [a + "q_proj.weight", a + "k_proj.weight", a + "v_proj.weight"]))
        if p["q_bias"]:
            out.append((o + "self_attn.in_proj_bias", [a + "q_proj.bias", a + "k_proj.bias", a + "v_proj.bias"]))
        if p["qk_norm"]:
            out.append((o + "self_attn.q_norm.weight", [a + "q_norm.weight"]))
            out.append((o + "self_attn.k_norm.weight", [a + "k_norm.weight"]))
        out.append((o + "self_attn.out_proj.weight", [a + "o_proj.weight"]))
        if p["o_bias"]:
            out.append((o + "self_attn.out_proj.bias", [a + "o_proj.bias"]))
        out.append((o + "linear1.weight", [m + "gate_proj.weight", m + "up_proj.weight"]))
        if p["mlp_bias"]:
            out.append((o + "linear1.bias", [m + "gate_proj.bias", m + "up_proj.bias"]))
        out.append((o + "linear2.weight", [m + "down_proj.weight"]))
        if p["mlp_bias"]:
            out.append((o + "linear2.bias", [m + "down_proj.bias"]))
        out.append((o + "norm1.weight", [L + "input_layernorm.weight"]))
        if p["sandwich"]:
            out.append((o + "norm2.weight", [L + "pre_feedforward_layernorm.weight"]))
            out.append((o + "post_norm1.weight", [L + "post_attention_layernorm.weight"]))
            out.append((o + "post_norm2.weight", [L + "post_feedforward_layernorm.weight"]))
        else:
            out.append((o + "norm2.weight", [L + "post_attention_layernorm.weight"]))
    out.append(("norm.weight", ["model.norm.weight"]))
    if not p["tied"]:
        out.append(("head.weight", ["lm_head.weight"]))
    return out


def ours_from_hf(hf_state, config):
    """{our name: tensor} in our order from HF-named tensors (every HF tensor used exactly once)."""
    sources = hf_sources(config)
    used = [n for _, names in sources for n in names]
    if sorted(used) != sorted(hf_state):
        raise ConfigError("HF names differ from the config's: %s" % sorted(set(used) ^ set(hf_state)))
    return {ours: torch.cat([hf_state[n] for n in names], dim=0) for ours, names in sources}


def hf_from_ours(our_state, config):
    """The inverse: split our fused tensors back into HF's (rows in q|k|v and gate|up order)."""
    out = {}
    shapes = {n: tuple(t.shape) for n, t in HfCausalLM(config).state_dict().items()}
    for ours, names in hf_sources(config):
        rows = [shapes[n][0] for n in names]
        for n, t in zip(names, torch.split(our_state[ours], rows, dim=0)):
            out[n] = t.clone()
    return out


def run(model, input_ids, attention_mask, grad=False):
    """A float64 copy's forward (detached unless grad)."""
    md = copy.deepcopy(model).double()
    with torch.set_grad_enabled(True):
        out = md(input_ids, attention_mask)
    if grad:
        return out, md
    return {k: ([t.detach() for t in v] if isinstance(v, list) else v.detach()) for k, v in out.items()}
