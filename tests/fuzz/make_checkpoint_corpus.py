"""Seeds for fuzz_checkpoint (tests/fuzz/harness_checkpoint.cpp): one file per mode byte.

0: config.json (also config_<dir>: the modern families' configs of tests/reference/fixtures/hub),
1: model.safetensors.index.json, 2: a weights file for the harness's tiny GPT-2 (n_embd 4, 2 heads, 1 layer, vocab 5, 4 positions), 3: one for its tiny BERT.
Run with Debian's /usr/bin/python3 (PyTorch); writes tests/fuzz/corpus/checkpoint/.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "reference"))
import safetensors_io  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "corpus", "checkpoint")
HUB = os.path.join(os.path.dirname(__file__), "..", "reference", "fixtures", "hub")
E, F, V, P, T = 4, 8, 5, 4, 2
g = torch.Generator().manual_seed(0)


def rand(*shape):
    return (torch.rand(*shape, generator=g) - 0.5).float()


def gpt2():
    t = {"wte.weight": rand(V, E), "wpe.weight": rand(P, E)}
    t.update({"h.0.ln_1.weight": rand(E) + 1, "h.0.ln_1.bias": rand(E),
              "h.0.attn.c_attn.weight": rand(E, 3 * E), "h.0.attn.c_attn.bias": rand(3 * E),
              "h.0.attn.c_proj.weight": rand(E, E), "h.0.attn.c_proj.bias": rand(E),
              "h.0.ln_2.weight": rand(E) + 1, "h.0.ln_2.bias": rand(E),
              "h.0.mlp.c_fc.weight": rand(E, 4 * E), "h.0.mlp.c_fc.bias": rand(4 * E),
              "h.0.mlp.c_proj.weight": rand(4 * E, E), "h.0.mlp.c_proj.bias": rand(E),
              "ln_f.weight": rand(E) + 1, "ln_f.bias": rand(E)})
    return t


def bert():
    p = "bert.encoder.layer.0."
    t = {"bert.embeddings.word_embeddings.weight": rand(V, E), "bert.embeddings.position_embeddings.weight": rand(P, E),
         "bert.embeddings.token_type_embeddings.weight": rand(T, E),
         "bert.embeddings.LayerNorm.weight": rand(E) + 1, "bert.embeddings.LayerNorm.bias": rand(E)}
    for part in ("query", "key", "value"):
        t[p + "attention.self." + part + ".weight"] = rand(E, E)
        t[p + "attention.self." + part + ".bias"] = rand(E)
    t.update({p + "attention.output.dense.weight": rand(E, E), p + "attention.output.dense.bias": rand(E),
              p + "attention.output.LayerNorm.weight": rand(E) + 1, p + "attention.output.LayerNorm.bias": rand(E),
              p + "intermediate.dense.weight": rand(F, E), p + "intermediate.dense.bias": rand(F),
              p + "output.dense.weight": rand(E, F), p + "output.dense.bias": rand(E),
              p + "output.LayerNorm.weight": rand(E) + 1, p + "output.LayerNorm.bias": rand(E),
              "cls.predictions.transform.dense.weight": rand(E, E), "cls.predictions.transform.dense.bias": rand(E),
              "cls.predictions.transform.LayerNorm.weight": rand(E) + 1,
              "cls.predictions.transform.LayerNorm.bias": rand(E), "cls.predictions.bias": rand(V)})
    return t


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "config"), "wb") as f:
        f.write(b"\x00" + b'{"model_type": "gpt2", "n_embd": 8, "n_head": 2, "n_layer": 1, "n_positions": 16, "vocab_size": 10}')
    for d in ("gemma3-text-tiny", "gemma3-mm-tiny-bf16", "qwen3-tiny-bf16", "smollm2-tiny-bf16"):
        with open(os.path.join(HUB, d, "config.json"), "rb") as src, \
                open(os.path.join(OUT, "config_" + d.replace("-", "_")), "wb") as f:
            f.write(b"\x00" + src.read())
    with open(os.path.join(OUT, "shard_index"), "wb") as f:
        f.write(b"\x01" + b'{"metadata": {"total_size": 8}, "weight_map": {"wte.weight": "a.safetensors", "ln_f.bias": "b.safetensors"}}')
    for mode, name, tensors in ((2, "gpt2", gpt2()), (3, "bert", bert())):
        path = os.path.join(OUT, name)
        safetensors_io.write(path, tensors)
        with open(path, "rb") as f:
            body = f.read()
        with open(path, "wb") as f:
            f.write(bytes([mode]) + body)


if __name__ == "__main__":
    main()
