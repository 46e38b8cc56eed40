#!/usr/bin/python3
"""Writes the greedy-generation fixtures: 20 greedy tokens after a prompt, from the PyTorch
references of GPT-2 (the gpt2-tiny checkpoint of fixtures/pretrained, Hugging Face names) and of
each causal modern family (tiny random checkpoints of the same configurations as
generate_modern_fixtures.py, with a context of 32 so that 20 new tokens fit).

Run with Debian's PyTorch:  /usr/bin/python3 tests/reference/generate_greedy_fixtures.py
Output (committed): tests/reference/fixtures/generation/<case>.safetensors (OUR names, the file the
engine loads; not for gpt2, which the engine loads from fixtures/pretrained/gpt2-tiny through its
checkpoint loader) and <case>.json: {spec (modern cases), prompt, continuation, margins}.

The reference generates without any cache: each token is the argmax of the last row of a full
float64 forward over the whole text so far (transformers' greedy search is the same argmax). The
engine's cached float32 generation must give the same tokens; `margins` holds each step's gap
between the two largest logits, and prompts are drawn until every gap exceeds 1e-3, so that a
float32 rounding cannot flip a choice.
"""
import copy
import json
import os

import torch

import hf_models
import hf_modern as hm
import safetensors_io
from common import OUT, write_json
from generate_modern_fixtures import CASES, randomize

GENERATION = os.path.join(OUT, "generation")
SEED = 20261127
MAX_SEQ = 32
PROMPT = 6
NEW = 20
MIN_MARGIN = 1e-3


def greedy(model, prompt):
    """20 argmax tokens, each from a full float64 forward over the text so far; and the margins."""
    md = copy.deepcopy(model).double().eval()
    ids, margins = list(prompt), []
    with torch.no_grad():
        for _ in range(NEW):
            x = torch.tensor([ids])
            logits = md(x, torch.ones_like(x))["logits"][0, -1]
            top = torch.topk(logits, 2).values
            margins.append(float(top[0] - top[1]))
            ids.append(int(torch.argmax(logits)))
    return ids[len(prompt):], margins


def draw_prompt(model, vocab, gen):
    for _ in range(200):
        prompt = torch.randint(0, vocab, (PROMPT,), generator=gen).tolist()
        continuation, margins = greedy(model, prompt)
        if min(margins) > MIN_MARGIN:
            return prompt, continuation, margins
    raise RuntimeError("no prompt with clear argmaxes")


def main():
    os.makedirs(GENERATION, exist_ok=True)
    gen = torch.Generator().manual_seed(SEED)
    # GPT-2: the committed gpt2-tiny checkpoint (Hugging Face names, as the hub file).
    pre = os.path.join(OUT, "pretrained", "gpt2-tiny")
    with open(os.path.join(pre, "config.json")) as f:
        config = json.load(f)
    model = hf_models.Gpt2Reference(config)
    tensors, _, _ = safetensors_io.read_typed(os.path.join(pre, "model.safetensors"))
    model.load_state_dict(tensors, strict=True)
    prompt, continuation, margins = draw_prompt(model, config["vocab_size"], gen)
    write_json(os.path.join(GENERATION, "gpt2.json"),
               {"checkpoint": "pretrained/gpt2-tiny", "prompt": prompt, "continuation": continuation,
                "margins": margins})
    print("gpt2", prompt, continuation, "min margin %.4f" % min(margins))
    for index, case in enumerate(CASES):
        name = case["name"]
        if name == "partial_rotary_linear":  # an encoder: nothing to generate
            continue
        case = copy.deepcopy(case)
        torch.manual_seed(SEED + index)
        if "config" in case:
            case["config"]["max_position_embeddings"] = MAX_SEQ
            ref = type("Ref", (), {})()
            ref.model = hm.HfCausalLM(case["config"])
            ref.spec = hm.spec_from_config(case["config"], MAX_SEQ)
            ours = lambda named, c=case["config"]: hm.ours_from_hf(named, c)  # noqa: E731
        else:
            case["spec"]["maxSeq"] = MAX_SEQ
            ref = type("Ref", (), {})()
            ref.model = hm.SpecModel(case["spec"])
            ref.spec = case["spec"]
            ours = lambda named, m=ref.model: {n: named[n] for n in m.state_dict()}  # noqa: E731
        randomize(ref, torch.Generator().manual_seed(SEED + 100 + index))
        prompt, continuation, margins = draw_prompt(ref.model, ref.spec["vocabSize"], gen)
        named = {n: t.detach().clone() for n, t in ref.model.state_dict().items()}
        safetensors_io.write(os.path.join(GENERATION, name + ".safetensors"), ours(named))
        write_json(os.path.join(GENERATION, name + ".json"),
                   {"spec": ref.spec, "prompt": prompt, "continuation": continuation, "margins": margins})
        print(name, prompt, continuation, "min margin %.4f" % min(margins))


if __name__ == "__main__":
    main()
