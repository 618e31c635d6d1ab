#!/usr/bin/env python3
"""The GPU check's peers (issue 16), timed on the same GPU in the same run as tunefarm's tuned
kernels: cuBLAS for the float32 GEMM 4096^3 and cuDNN for ResNet-18's 3x3 conv at 56x56, both
through PyTorch, with TF32 off (tunefarm computes in float32 FMA), and PyTorch's eager
ResNet-18 (batch 1, float32, TF32 off).

The kernels are timed as tunefarm's agent times a candidate with flush_cache (the tuner's
default): the median of 50 calls after 10 warm-ups, each alone between two CUDA events, after
the L2 is flushed (a buffer of twice its size zeroed). The GPU is also kept busy for a moment
before each start event (torch.cuda._sleep), so that PyTorch has queued the call by the time
the GPU reaches it: on an idle GPU the start event would fire at once and the events would
count PyTorch's host-side dispatch (10-20 us) into a conv of a few tens. The model is timed end
to end on the host clock, a call and a synchronize, as `tunefarm bench` times an artifact.
Prints one line per peer:
  <name> <seconds per call> <GFLOP/s, or 0 for the model>
"""
import statistics
import time

import torch


def time_kernel(fn, warmup=10, runs=50):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20) or (64 << 20)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    sleep = getattr(torch.cuda, "_sleep", None)
    costs = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        flush.zero_()
        if sleep is not None:
            sleep(1_000_000)  # about half a millisecond of GPU clock cycles
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        costs.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(costs)


def time_end_to_end(fn, warmup=10, runs=50):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    costs = []
    for _ in range(runs):
        begin = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        costs.append(time.perf_counter() - begin)
    return statistics.median(costs)


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    n = 4096
    a, b = torch.randn(n, n, device=dev), torch.randn(n, n, device=dev)
    sec = time_kernel(lambda: torch.matmul(a, b))
    print(f"cublas_gemm4096 {sec:.6e} {2 * n**3 / sec / 1e9:.1f}")
    x = torch.randn(1, 64, 56, 56, device=dev)
    w = torch.randn(64, 64, 3, 3, device=dev)
    sec = time_kernel(lambda: torch.nn.functional.conv2d(x, w, padding=1))
    flops = 2 * 64 * 56 * 56 * 64 * 9
    print(f"cudnn_resnet18_conv {sec:.6e} {flops / sec / 1e9:.1f}")
    import torchvision

    model = torchvision.models.resnet18(weights=None).eval().to(dev)
    image = torch.rand(1, 3, 224, 224, device=dev)
    with torch.no_grad():
        sec = time_end_to_end(lambda: model(image))
    print(f"pytorch_resnet18 {sec:.6e} 0")
    print(f"device {torch.cuda.get_device_name()} torch {torch.__version__} "
          f"cudnn {torch.backends.cudnn.version()} "
          f"tf32: matmul {torch.backends.cuda.matmul.allow_tf32} cudnn {torch.backends.cudnn.allow_tf32} "
          f"sleep-before-start {getattr(torch.cuda, '_sleep', None) is not None}")


if __name__ == "__main__":
    main()
