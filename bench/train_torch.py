#!/usr/bin/python3
"""Times one training step (forward, backward, AdamW) of the same model in PyTorch on
the CPU with one thread, for npm run bench's training table. The model is
tests/reference/models.py's build(spec): the PyTorch model a ModelSpec describes.
Usage: /usr/bin/python3 bench/train_torch.py dModel,layers,heads,ffnDim,seq,batch,vocab ...
Prints one JSON line per shape."""
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "reference"))
import models  # noqa: E402

torch.set_num_threads(1)
for arg in sys.argv[1:]:
    e, layers, heads, ffn, seq, batch, vocab = (int(v) for v in arg.split(","))
    spec = ({"vocabSize": vocab, "dModel": e, "heads": heads, "layers": layers, "ffnDim": ffn,
                                  "maxSeq": seq, "positions": "learned", "causal": True, "norm": "pre",
                                  "finalNorm": True, "activation": "relu", "head": "linear", "layerNormEps": 1e-5,
                                  "encoderLayers": 0, "residual": True, "scale": True})
    model = models.build(spec).train()
    gen = torch.Generator().manual_seed(7)
    ids = torch.randint(0, vocab, (batch, seq), generator=gen)
    targets = torch.randint(0, vocab, (batch * seq,), generator=gen)
    mask = torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def step():
        optimizer.zero_grad()
        h = model.embed(ids) + model.pos.weight[:seq]
        for layer in model.layers:
            h = layer(h, src_mask=mask)
        logits = model.head(model.norm(h))
        loss = F.cross_entropy(logits.reshape(-1, vocab), targets)
        loss.backward()
        optimizer.step()

    for _ in range(3):
        step()
    times = []
    start = time.perf_counter()
    while len(times) < 5 or (len(times) < 200 and time.perf_counter() - start < 3):
        t = time.perf_counter()
        step()
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    print(json.dumps({"shape": arg, "ms": times[len(times) // 2], "torch": torch.__version__}), flush=True)
