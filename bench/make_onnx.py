#!/usr/bin/python3
"""Exports nn.MultiheadAttention's forward pass to ONNX for the onnxruntime-web peer
in `npm run bench`. Run with Debian's PyTorch: /usr/bin/python3 bench/make_onnx.py

One file per (E, H), with batch and sequence length dynamic and the weights as graph
inputs (not initializers), so each file is a few KB and the benchmark feeds the
same weights to every engine. Output: bench/models/mha_e{E}_h{H}.onnx (committed).
"""
import os

import torch
from torch import nn
from torch.nn import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


class MultiheadAttentionWithWeightInputs(nn.Module):
    """nn.MultiheadAttention(E, H, batch_first=True) self-attention, weights passed in."""

    def __init__(self, embed_dim, heads):
        super().__init__()
        self.embed_dim, self.heads = embed_dim, heads

    def forward(self, x, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias):
        seq_first = x.transpose(0, 1)  # (S, B, E), as F.multi_head_attention_forward wants
        out, _ = F.multi_head_attention_forward(
            seq_first, seq_first, seq_first, self.embed_dim, self.heads, in_proj_weight, in_proj_bias,
            None, None, False, 0.0, out_proj_weight, out_proj_bias, training=False, need_weights=False)
        return out.transpose(0, 1)


def export(embed_dim, heads):
    module = MultiheadAttentionWithWeightInputs(embed_dim, heads).eval()
    e = embed_dim
    args = (torch.randn(1, 8, e), torch.randn(3 * e, e) * 0.1, torch.randn(3 * e) * 0.1, torch.randn(e, e) * 0.1,
            torch.randn(e) * 0.1)
    # Check the module against nn.MultiheadAttention before exporting it.
    reference = nn.MultiheadAttention(e, heads, batch_first=True).eval()
    with torch.no_grad():
        reference.in_proj_weight.copy_(args[1]); reference.in_proj_bias.copy_(args[2])
        reference.out_proj.weight.copy_(args[3]); reference.out_proj.bias.copy_(args[4])
        expected, _ = reference(args[0], args[0], args[0], need_weights=False)
        difference = (module(*args) - expected).abs().max().item()
        assert difference < 1e-4, f"module differs from nn.MultiheadAttention by {difference}"
    path = os.path.join(HERE, "models", f"mha_e{e}_h{heads}.onnx")
    torch.onnx.export(module, args, path, opset_version=14,
                      input_names=["x", "in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias"],
                      output_names=["y"], dynamic_axes={"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}})
    print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "models"), exist_ok=True)
    for e, h in [(64, 4), (256, 8), (768, 12)]:
        export(e, h)
