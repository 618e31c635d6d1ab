#include "bench/compiler/peers.h"

#include <cblas.h>

#include <memory>

namespace tunefarm::bench {

Peer BlasMatmulPeer(int64_t m, int64_t n, int64_t k, const std::vector<float>* a, const std::vector<float>* b) {
  auto out = std::make_shared<std::vector<float>>(m * n);
  Peer peer;
  peer.name = m == 1 ? "sgemv" : "sgemm";
  peer.setup = [](int threads) { openblas_set_num_threads(threads); };
  peer.run = [=] {
    if (m == 1) {
      cblas_sgemv(CblasRowMajor, CblasTrans, k, n, 1.f, b->data(), n, a->data(), 1, 0.f, out->data(), 1);
    } else {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.f, a->data(), k, b->data(), n, 0.f, out->data(),
                  n);
    }
  };
  peer.output = [out] { return *out; };
  return peer;
}

Peer OneDnnConvPeer(const ConvShape& p, const std::vector<float>* x, const std::vector<float>* w) {
  auto conv = std::make_shared<std::unique_ptr<OneDnnConv>>();
  Peer peer;
  peer.name = "oneDNN";
  peer.setup = [conv, p, x, w](int threads) {
    SetOneDnnThreads(threads);
    *conv = std::make_unique<OneDnnConv>(p, x->data(), w->data());
  };
  peer.run = [conv] { (*conv)->Run(); };
  peer.output = [conv] { return (*conv)->OutputNchw(); };
  return peer;
}

}  // namespace tunefarm::bench
