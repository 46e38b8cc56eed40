#!/usr/bin/python3
"""Checks a weights file (e.g. one the C++ engine wrote) against PyTorch, and runs its forward.

    /usr/bin/python3 tests/reference/roundtrip.py SPEC.json WEIGHTS.safetensors [INPUT.json]

SPEC.json holds a spec object, or any JSON object with a "spec" key (a model fixture).
The weights are read with the strict reader (safetensors_io.read; F32, F16 or BF16), loaded
with load_state_dict(strict=True), and every state_dict tensor must then equal the file's
value exactly (all finite). With INPUT.json ({"batch","seq","ids","lengths"}, plus
"source_seq","source_ids","source_lengths" for an encoder-decoder; a model fixture works) the
forward runs in float64.

Prints one JSON line and exits 0:
    {"ok": true, "parameters": <number of tensors>, "values": <number of scalars>,
     "ignored_spec_keys": [...], "hidden": [...] , "logits": [...] or null}
(hidden/logits flat, only with INPUT.json). On any failure prints {"ok": false, "error": "..."}
and exits 1.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import models  # noqa: E402
import safetensors_io  # noqa: E402
from common import flat  # noqa: E402


class Failure(Exception):
    pass


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Failure("cannot read %s %s: %s" % (what, path, e))


def run(argv):
    if len(argv) not in (2, 3):
        raise Failure("usage: roundtrip.py SPEC.json WEIGHTS.safetensors [INPUT.json]")
    doc = load_json(argv[0], "spec")
    spec_obj = doc["spec"] if isinstance(doc, dict) and "spec" in doc else doc
    spec, ignored = models.normalize_spec(spec_obj)
    model = models.build(spec)

    try:
        tensors, _metadata = safetensors_io.read(argv[1])
    except OSError as e:
        raise Failure("cannot read weights %s: %s" % (argv[1], e))

    expected = model.state_dict()
    missing = [k for k in expected if k not in tensors]
    unexpected = [k for k in tensors if k not in expected]
    if missing or unexpected:
        raise Failure("state_dict mismatch: missing %s, unexpected %s" % (missing, unexpected))
    for name, t in tensors.items():
        if list(t.shape) != list(expected[name].shape):
            raise Failure("%s: shape %s in the file, the model wants %s" % (name, list(t.shape),
                                                                            list(expected[name].shape)))
        if not torch.isfinite(t).all():
            raise Failure("%s: non-finite value in the file" % name)
    model.load_state_dict(tensors, strict=True)
    for name, t in model.state_dict().items():
        if t.dtype != torch.float32 or not torch.equal(t, tensors[name]):
            raise Failure("%s: loaded value differs from the file" % name)

    result = {"ok": True, "parameters": len(tensors), "values": sum(t.numel() for t in tensors.values()),
              "ignored_spec_keys": ignored}
    if len(argv) == 3:
        inputs = load_json(argv[2], "input")
        if not isinstance(inputs, dict):
            raise Failure("input must be a JSON object")
        out = models.forward(model, inputs)
        if not torch.isfinite(out["hidden"]).all():
            raise Failure("forward produced non-finite values")
        result["hidden"] = flat(out["hidden"])
        result["logits"] = flat(out["logits"]) if out["logits"] is not None else None
    return result


def main():
    try:
        result = run(sys.argv[1:])
    except Exception as e:  # every failure becomes one JSON line
        msg = str(e) or type(e).__name__
        if not isinstance(e, (Failure, models.SpecError, safetensors_io.SafetensorsError)):
            msg = "%s: %s" % (type(e).__name__, msg)
        print(json.dumps({"ok": False, "error": msg}))
        sys.exit(1)
    print(json.dumps(result, allow_nan=False))


if __name__ == "__main__":
    main()
