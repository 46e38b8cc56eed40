"""PyTorch references for Hugging Face GPT-2 and BERT checkpoints (written from the semantics of
transformers 4.x GPT2Model/GPT2LMHeadModel and BertModel/BertForPreTraining; no code copied, the
transformers library is not used or needed).

Both modules take the checkpoint's config.json as a dict, and their state_dict() keys are the
hub names, in the order transformers' modules produce them (a module's own parameters and
buffers before its children's):

Gpt2Reference (the hub `gpt2` checkpoint layout: GPT2Model's names, no `transformer.` prefix):
    wte.weight (V,E), wpe.weight (n_positions,E),
    h.{i}.ln_1.weight/bias (E), h.{i}.attn.bias (1,1,n_positions,n_positions) uint8 buffer,
    h.{i}.attn.masked_bias () float buffer (-1e4; unused), h.{i}.attn.c_attn.weight (E,3E)/bias (3E),
    h.{i}.attn.c_proj.weight (E,E)/bias, h.{i}.ln_2.weight/bias, h.{i}.mlp.c_fc.weight (E,I)/bias (I),
    h.{i}.mlp.c_proj.weight (I,E)/bias (E), ln_f.weight/bias
  with I = n_inner or 4E. Conv1D weights are stored (in, out): y = x @ W + b (the transpose of
  nn.Linear's). The LM head is tied: logits = ln_f(h) @ wte.weight.T, no bias; with
  tie_word_embeddings false it is lm_head.weight (V,E), last in state_dict order.

BertReference (BertForPreTraining's names):
    bert.embeddings.position_ids (1,max_pos) int64 buffer, bert.embeddings.word_embeddings.weight,
    bert.embeddings.position_embeddings.weight, bert.embeddings.token_type_embeddings.weight,
    bert.embeddings.LayerNorm.weight/bias,
    bert.encoder.layer.{i}.attention.self.{query,key,value}.weight (E,E)/bias,
    bert.encoder.layer.{i}.attention.output.dense.weight/bias, ...attention.output.LayerNorm.weight/bias,
    bert.encoder.layer.{i}.intermediate.dense.weight (I,E)/bias, ...output.dense.weight (E,I)/bias,
    bert.encoder.layer.{i}.output.LayerNorm.weight/bias, bert.pooler.dense.weight/bias,
    cls.predictions.bias (V), cls.predictions.transform.dense.weight/bias,
    cls.predictions.transform.LayerNorm.weight/bias, cls.seq_relationship.weight (2,E)/bias
  (nn.Linear layout, weight (out, in)). The MLM decoder is tied: cls.predictions.decoder.weight
  (when a file has it) equals word_embeddings.weight, and its bias is cls.predictions.bias;
  with tie_word_embeddings false it is its own parameter cls.predictions.decoder.weight (V,E)
  (after the transform in state_dict order), still with cls.predictions.bias.

forward(input_ids, attention_mask=None[, token_type_ids]) returns a dict with
  attentions:    [per layer (B,H,S,S)], the softmax weights after masking (HF's output_attentions)
  hidden_states: n_layer+1 tensors (B,S,E), HF's output_hidden_states:
                 GPT-2: [embeddings, block 0 out, ..., block L-2 out, ln_f(block L-1 out)]:
                 the LAST entry has ln_f applied and the raw output of the last block is not
                 among them (transformers' convention);
                 BERT:  [embeddings (after their LayerNorm), layer 0 out, ..., layer L-1 out]
  logits:        (B,S,V): GPT-2 tied head; BERT the MLM head cls.predictions
  BERT also: pooler_output (B,E) = tanh(pooler.dense(h[:,0])), seq_relationship_logits (B,2).

Masking: attention_mask (B,S) 1 = real token, 0 = padding; keys at padding are blocked (and for
GPT-2 keys after the query). Blocked scores are -inf before the softmax; transformers adds
finfo(dtype).min instead, which gives the same weights on every row with at least one allowed
key (every row here: right padding keeps key 0 real). Dropout is never applied (eval semantics);
position ids are 0..S-1 for every row (GPT-2 ignores the padding for positions, like transformers
without explicit position_ids).

run(model, ...) evaluates a float64 copy (weights are float32, the forward float64, as in the
other references) and returns detached tensors.
"""
import copy
import math

import torch
import torch.nn.functional as F
from torch import nn


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def gelu_new(x):
    """transformers' "gelu_new" (the GPT-2 tanh approximation), written out."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


ACT = {
    "gelu": gelu_erf,
    "gelu_new": gelu_new,
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_fast": lambda x: 0.5 * x * (1.0 + torch.tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x))),
    "quick_gelu": lambda x: x * torch.sigmoid(1.702 * x),
    "relu": F.relu,
    "silu": F.silu,
    "swish": F.silu,
    "tanh": torch.tanh,
}


def activation(name):
    if name not in ACT:
        raise ValueError("unsupported activation %r (%s)" % (name, ", ".join(sorted(ACT))))
    return ACT[name]


def attend(q, k, v, blocked):
    """q,k,v (B,H,S,D); blocked (B|1,1|H,S,S) bool. Returns (context (B,H,S,D), weights (B,H,S,S))."""
    scores = q @ k.transpose(-1, -2)
    scores = scores.masked_fill(blocked, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def split_heads(x, heads):
    b, s, e = x.shape
    return x.reshape(b, s, heads, e // heads).transpose(1, 2)


def merge_heads(x):
    b, h, s, d = x.shape
    return x.transpose(1, 2).reshape(b, s, h * d)


def key_padding(attention_mask, batch, seq, device=None):
    """(B,1,1,S) bool, True where the key is padding."""
    if attention_mask is None:
        return torch.zeros(batch, 1, 1, seq, dtype=torch.bool, device=device)
    return (attention_mask == 0).reshape(batch, 1, 1, seq)


# ----------------------------------------------------------------------------------- GPT-2

class Conv1D(nn.Module):
    """transformers' Conv1D: weight (in, out), y = x @ weight + bias."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


class Gpt2Attention(nn.Module):
    def __init__(self, cfg, layer_idx):
        super().__init__()
        e, n = cfg["n_embd"], cfg["n_positions"]
        self.heads = cfg["n_head"]
        self.layer_idx = layer_idx
        self.scale = cfg.get("scale_attn_weights", True)
        self.scale_by_layer = cfg.get("scale_attn_by_inverse_layer_idx", False)
        # Old checkpoints carry these two buffers; the forward uses `bias` as the causal mask.
        self.register_buffer("bias", torch.tril(torch.ones(n, n, dtype=torch.uint8)).reshape(1, 1, n, n))
        self.register_buffer("masked_bias", torch.tensor(-1e4))
        self.c_attn = Conv1D(e, 3 * e)
        self.c_proj = Conv1D(e, e)

    def forward(self, x, pad):
        s = x.shape[1]
        e = x.shape[2]
        q, k, v = self.c_attn(x).split(e, dim=2)
        q, k, v = (split_heads(t, self.heads) for t in (q, k, v))
        if self.scale:
            q = q / math.sqrt(v.shape[-1])
        if self.scale_by_layer:
            q = q / float(self.layer_idx + 1)
        blocked = (self.bias[:, :, :s, :s] == 0) | pad
        ctx, weights = attend(q, k, v, blocked)
        return self.c_proj(merge_heads(ctx)), weights


class Gpt2Mlp(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        e = cfg["n_embd"]
        inner = cfg.get("n_inner") or 4 * e
        self.c_fc = Conv1D(e, inner)
        self.c_proj = Conv1D(inner, e)
        self.act = activation(cfg.get("activation_function", "gelu_new"))

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class Gpt2Block(nn.Module):
    def __init__(self, cfg, layer_idx):
        super().__init__()
        e, eps = cfg["n_embd"], cfg["layer_norm_epsilon"]
        self.ln_1 = nn.LayerNorm(e, eps=eps)
        self.attn = Gpt2Attention(cfg, layer_idx)
        self.ln_2 = nn.LayerNorm(e, eps=eps)
        self.mlp = Gpt2Mlp(cfg)

    def forward(self, x, pad):
        a, weights = self.attn(self.ln_1(x), pad)
        x = x + a
        x = x + self.mlp(self.ln_2(x))
        return x, weights


class Gpt2Reference(nn.Module):
    """GPT2LMHeadModel with GPT2Model's parameter names (the hub `gpt2` file has no prefix)."""

    def __init__(self, config):
        super().__init__()
        cfg = dict(config)
        if cfg.get("model_type") != "gpt2":
            raise ValueError("not a gpt2 config: model_type %r" % cfg.get("model_type"))
        # reorder_and_upcast_attn only changes the float precision transformers computes in; ignored here.
        if cfg.get("add_cross_attention", False):
            raise ValueError("add_cross_attention is not supported")
        if cfg["n_embd"] % cfg["n_head"]:
            raise ValueError("n_embd %d not divisible by n_head %d" % (cfg["n_embd"], cfg["n_head"]))
        self.config = cfg
        self.wte = nn.Embedding(cfg["vocab_size"], cfg["n_embd"])
        self.wpe = nn.Embedding(cfg["n_positions"], cfg["n_embd"])
        self.h = nn.ModuleList([Gpt2Block(cfg, i) for i in range(cfg["n_layer"])])
        self.ln_f = nn.LayerNorm(cfg["n_embd"], eps=cfg["layer_norm_epsilon"])
        # GPT2LMHeadModel.lm_head (V, E), no bias: tied to wte unless tie_word_embeddings is false
        self.tied = cfg.get("tie_word_embeddings", True)
        if not self.tied:
            self.lm_head = nn.Linear(cfg["n_embd"], cfg["vocab_size"], bias=False)

    def forward(self, input_ids, attention_mask=None):
        b, s = input_ids.shape
        if s > self.config["n_positions"]:
            raise ValueError("sequence %d longer than n_positions %d" % (s, self.config["n_positions"]))
        pad = key_padding(attention_mask, b, s, input_ids.device)
        x = self.wte(input_ids) + self.wpe.weight[:s]
        hidden, attentions = [], []
        for block in self.h:
            hidden.append(x)
            x, weights = block(x, pad)
            attentions.append(weights)
        x = self.ln_f(x)
        hidden.append(x)  # HF: the last hidden state is ln_f's output
        logits = x @ (self.wte.weight if self.tied else self.lm_head.weight).T
        return {"attentions": attentions, "hidden_states": hidden, "logits": logits}


# ------------------------------------------------------------------------------------ BERT

class BertEmbeddings(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        e = cfg["hidden_size"]
        self.register_buffer("position_ids", torch.arange(cfg["max_position_embeddings"]).reshape(1, -1))
        self.word_embeddings = nn.Embedding(cfg["vocab_size"], e)
        self.position_embeddings = nn.Embedding(cfg["max_position_embeddings"], e)
        self.token_type_embeddings = nn.Embedding(cfg["type_vocab_size"], e)
        self.LayerNorm = nn.LayerNorm(e, eps=cfg["layer_norm_eps"])

    def forward(self, input_ids, token_type_ids):
        s = input_ids.shape[1]
        x = self.word_embeddings(input_ids) + self.position_embeddings.weight[:s] + \
            self.token_type_embeddings(token_type_ids)
        return self.LayerNorm(x)


class BertSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        e = cfg["hidden_size"]
        self.heads = cfg["num_attention_heads"]
        self.query = nn.Linear(e, e)
        self.key = nn.Linear(e, e)
        self.value = nn.Linear(e, e)

    def forward(self, x, pad):
        q, k, v = (split_heads(f(x), self.heads) for f in (self.query, self.key, self.value))
        q = q / math.sqrt(q.shape[-1])
        ctx, weights = attend(q, k, v, pad)
        return merge_heads(ctx), weights


class BertDenseNorm(nn.Module):
    """BertSelfOutput / BertOutput: LayerNorm(residual + dense(x))."""

    def __init__(self, n_in, cfg):
        super().__init__()
        self.dense = nn.Linear(n_in, cfg["hidden_size"])
        self.LayerNorm = nn.LayerNorm(cfg["hidden_size"], eps=cfg["layer_norm_eps"])

    def forward(self, x, residual):
        return self.LayerNorm(residual + self.dense(x))


class BertAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.self = BertSelfAttention(cfg)
        self.output = BertDenseNorm(cfg["hidden_size"], cfg)

    def forward(self, x, pad):
        ctx, weights = self.self(x, pad)
        return self.output(ctx, x), weights


class BertIntermediate(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["intermediate_size"])
        self.act = activation(cfg["hidden_act"])

    def forward(self, x):
        return self.act(self.dense(x))


class BertLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attention = BertAttention(cfg)
        self.intermediate = BertIntermediate(cfg)
        self.output = BertDenseNorm(cfg["intermediate_size"], cfg)

    def forward(self, x, pad):
        a, weights = self.attention(x, pad)
        return self.output(self.intermediate(a), a), weights


class BertEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(cfg) for _ in range(cfg["num_hidden_layers"])])


class BertPooler(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["hidden_size"])

    def forward(self, h):
        return torch.tanh(self.dense(h[:, 0]))


class BertModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embeddings = BertEmbeddings(cfg)
        self.encoder = BertEncoder(cfg)
        self.pooler = BertPooler(cfg)


class BertPredictionTransform(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["hidden_size"])
        self.act = activation(cfg["hidden_act"])
        self.LayerNorm = nn.LayerNorm(cfg["hidden_size"], eps=cfg["layer_norm_eps"])

    def forward(self, x):
        return self.LayerNorm(self.act(self.dense(x)))


class BertLMPredictionHead(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(cfg["vocab_size"]))
        self.transform = BertPredictionTransform(cfg)
        # The decoder (V, E) is the word embeddings unless tie_word_embeddings is false; its
        # bias is always self.bias (transformers ties decoder.bias to it).
        self.tied = cfg.get("tie_word_embeddings", True)
        if not self.tied:
            self.decoder = nn.Linear(cfg["hidden_size"], cfg["vocab_size"], bias=False)

    def forward(self, x, word_embeddings):
        return self.transform(x) @ (word_embeddings if self.tied else self.decoder.weight).T + self.bias


class BertPreTrainingHeads(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.predictions = BertLMPredictionHead(cfg)
        self.seq_relationship = nn.Linear(cfg["hidden_size"], 2)


class BertReference(nn.Module):
    """BertForPreTraining (names `bert.*` and `cls.*`), MLM decoder tied to the word embeddings."""

    def __init__(self, config):
        super().__init__()
        cfg = dict(config)
        if cfg.get("model_type") != "bert":
            raise ValueError("not a bert config: model_type %r" % cfg.get("model_type"))
        if cfg.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported")
        if cfg.get("is_decoder", False) or cfg.get("add_cross_attention", False):
            raise ValueError("decoder BERT is not supported")
        if cfg["hidden_size"] % cfg["num_attention_heads"]:
            raise ValueError("hidden_size not divisible by num_attention_heads")
        self.config = cfg
        self.bert = BertModel(cfg)
        self.cls = BertPreTrainingHeads(cfg)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        b, s = input_ids.shape
        if s > self.config["max_position_embeddings"]:
            raise ValueError("sequence %d longer than max_position_embeddings" % s)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        pad = key_padding(attention_mask, b, s, input_ids.device)
        x = self.bert.embeddings(input_ids, token_type_ids)
        hidden, attentions = [x], []
        for layer in self.bert.encoder.layer:
            x, weights = layer(x, pad)
            hidden.append(x)
            attentions.append(weights)
        logits = self.cls.predictions(x, self.bert.embeddings.word_embeddings.weight)
        pooled = self.bert.pooler(x)
        return {"attentions": attentions, "hidden_states": hidden, "logits": logits, "pooler_output": pooled,
                "seq_relationship_logits": self.cls.seq_relationship(pooled)}


# --------------------------------------------------------------------------------- helpers

def build(config):
    kind = config.get("model_type")
    if kind == "gpt2":
        return Gpt2Reference(config)
    if kind == "bert":
        return BertReference(config)
    raise ValueError("unsupported model_type %r" % kind)


def run(model, input_ids, attention_mask=None, token_type_ids=None):
    """The float64 forward of a (float32) model; returns detached float64 tensors (see the docstring)."""
    md = copy.deepcopy(model).double().eval()
    args = (input_ids, attention_mask) if isinstance(md, Gpt2Reference) else (input_ids, attention_mask, token_type_ids)
    with torch.no_grad():
        out = md(*args)
    return {k: ([t.detach() for t in v] if isinstance(v, list) else v.detach()) for k, v in out.items()}


def buffer_names(model):
    """state_dict keys that are buffers (not parameters): loaders ignore them."""
    params = {k for k, _ in model.named_parameters()}
    return [k for k in model.state_dict() if k not in params]
