#!/usr/bin/env python3
"""Writes the GPU check's workloads as ONNX models (issue 16): a float32 GEMM 4096^3 whose
operands are both graph inputs; ResNet-18's 3x3 convolution at 56x56 (64 -> 64 channels,
stride 1, pad 1, batch 1) with random float32 weights; and torchvision's
ResNet-18 (seeded random weights, eval mode) with an input and its float32 output computed by
PyTorch on the CPU, as resnet18.onnx, resnet18.input.npy and resnet18.output.npy. Needs `onnx`
and `numpy` (and `torch`, `torchvision` for resnet18); the GPU machine has them all. The
shared ResNet-18 (45 MB) does not fit in what the device tool carries, so it is made there.

usage: gpu_workloads.py OUT_DIR [kernels] [resnet18]    (default: kernels)
  kernels   gemm4096.onnx and resnet18_conv.onnx, the two workloads the check tunes
  resnet18  the whole ResNet-18 with its input and output, for the end-to-end run
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def gemm(n):
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [n, n])
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, [n, n])
    graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["c"])], f"gemm{n}", [a, b], [c])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def resnet18_conv(channels=64, size=56):
    rng = np.random.default_rng(18)
    w = (rng.standard_normal((channels, channels, 3, 3)) * 0.05).astype(np.float32)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, size, size])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels, size, size])
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])
    graph = helper.make_graph([node], "resnet18_conv", [x], [y], initializer=[numpy_helper.from_array(w, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def resnet18(out):
    import torch
    import torchvision

    torch.manual_seed(18)
    model = torchvision.models.resnet18(weights=None).eval()
    x = torch.rand(1, 3, 224, 224)
    with torch.no_grad():
        y = model(x)
    try:  # the TorchScript exporter: plain ONNX ops, no onnxscript functions
        torch.onnx.export(model, (x,), f"{out}/resnet18.onnx", opset_version=17, dynamo=False,
                          input_names=["input"], output_names=["output"])
    except TypeError:  # a torch without the `dynamo` argument
        torch.onnx.export(model, (x,), f"{out}/resnet18.onnx", opset_version=17,
                          input_names=["input"], output_names=["output"])
    np.save(f"{out}/resnet18.input.npy", x.numpy())
    np.save(f"{out}/resnet18.output.npy", y.numpy())


def main():
    out, what = sys.argv[1], sys.argv[2:] or ["kernels"]
    unknown = set(what) - {"kernels", "resnet18"}
    if unknown:
        sys.exit(f"gpu_workloads.py: unknown workload {sorted(unknown)[0]!r} (kernels, resnet18)")
    if "kernels" in what:
        onnx.save(gemm(4096), f"{out}/gemm4096.onnx")
        onnx.save(resnet18_conv(), f"{out}/resnet18_conv.onnx")
    if "resnet18" in what:
        resnet18(out)


if __name__ == "__main__":
    main()
