#!/usr/bin/python3
"""Writes whole-model reference fixtures: weights as .safetensors and the expected forward as JSON.

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_model_fixtures.py
Output (committed): tests/reference/fixtures/models/<case>.safetensors and <case>.json, plus
post_relu_sinusoidal.{f16,bf16}.safetensors (the same weights converted) and
post_relu_sinusoidal.{f16,bf16}_as_f32.safetensors (those converted back to float32).

Weights and token ids are drawn in float32 / int; the forward runs in float64 (train mode,
dropout 0, gradients enabled: no fast path), so the expected values are the exact answer for
the float32 weights in the file. See models.py for the names and README.md for the JSON keys.
"""
import os

import torch

import models
import safetensors_io
from common import OUT, flat, padding_mask, write_json

MODELS = os.path.join(OUT, "models")
SEED = 20261123


spec = models.make_spec


CASES = [
    ("post_relu_sinusoidal",
     spec(13, 12, 3, 2, 20, 10, "sinusoidal", False, "post", False, "relu", 1e-5, "linear"),
     dict(batch=3, seq=6, lengths=[6, 4, 1])),
    ("pre_gelu_learned_causal_tied",
     spec(11, 16, 4, 2, 24, 9, "learned", True, "pre", True, "gelu", 1e-5, "tied"),
     dict(batch=2, seq=5, lengths=[5, 3])),
    ("post_gelutanh_nopos_causal",
     spec(7, 8, 2, 3, 16, 8, "none", True, "post", False, "gelu_tanh", 1e-6, "none"),
     dict(batch=2, seq=4, lengths=[4, 4])),
    ("pre_relu_learned_eps",
     spec(9, 10, 5, 1, 12, 7, "learned", False, "pre", True, "relu", 1e-3, "linear"),
     dict(batch=3, seq=7, lengths=[7, 2, 5])),
    ("encdec_post_sinusoidal",
     spec(10, 12, 2, 2, 18, 9, "sinusoidal", True, "post", True, "relu", 1e-5, "linear", encoder_layers=2),
     dict(batch=2, seq=4, lengths=[4, 2], source_seq=5, source_lengths=[5, 3])),
    ("encdec_pre_gelu_learned",
     spec(9, 10, 2, 2, 14, 7, "learned", False, "pre", False, "gelu", 1e-5, "tied", encoder_layers=1),
     dict(batch=3, seq=5, lengths=[3, 5, 1], source_seq=6, source_lengths=[6, 2, 4])),
]


def check_result(name, inputs, result):
    for key in ("hidden", "logits", "memory"):
        t = result[key]
        assert t is None or torch.isfinite(t).all(), (name, key)
    # Padded positions are computed like any other (PyTorch's fast path would write zeros there).
    kpm = padding_mask(inputs["lengths"], inputs["seq"])
    for t in [result["hidden"]] + result["layer_outputs"]:
        assert (t[kpm].abs().sum(-1) > 0).all(), name


def write_case(index, name, spec_, shape):
    gen = torch.Generator().manual_seed(SEED + index)
    model = models.build(spec_)
    models.randomize(model, gen)
    inputs = models.random_inputs(spec_, gen, **shape)
    result = models.forward(model, inputs)
    check_result(name, inputs, result)

    state = model.state_dict()
    weights_path = os.path.join(MODELS, name + ".safetensors")
    safetensors_io.write(weights_path, state, metadata={"format": "pt"})
    fixture = {"name": name, "generator": "tests/reference/generate_model_fixtures.py", "torch": torch.__version__,
               "spec": spec_, "parameters": models.parameter_list(model),
               "batch": inputs["batch"], "seq": inputs["seq"], "ids": inputs["ids"], "lengths": inputs["lengths"]}
    if spec_["encoderLayers"] > 0:
        fixture.update({k: inputs[k] for k in ("source_seq", "source_ids", "source_lengths")})
    fixture.update({"hidden": flat(result["hidden"]),
                    "logits": flat(result["logits"]) if result["logits"] is not None else None,
                    "layer_outputs": [flat(t) for t in result["layer_outputs"]]})
    if result["memory"] is not None:
        fixture["memory"] = flat(result["memory"])
    write_json(os.path.join(MODELS, name + ".json"), fixture)

    if index == 0:
        # Converted copies: loading F16/BF16 must give exactly the parameters of the *_as_f32 files.
        for dtype in ("F16", "BF16"):
            tag = dtype.lower()
            safetensors_io.write(os.path.join(MODELS, "%s.%s.safetensors" % (name, tag)), state,
                                 metadata={"format": "pt"}, dtype=dtype)
            store = {"F16": torch.float16, "BF16": torch.bfloat16}[dtype]
            upcast = {k: v.to(store).to(torch.float32) for k, v in state.items()}
            safetensors_io.write(os.path.join(MODELS, "%s.%s_as_f32.safetensors" % (name, tag)), upcast,
                                 metadata={"format": "pt"})


def main():
    os.makedirs(MODELS, exist_ok=True)
    for index, (name, spec_, shape) in enumerate(CASES):
        write_case(index, name, spec_, shape)


if __name__ == "__main__":
    main()
