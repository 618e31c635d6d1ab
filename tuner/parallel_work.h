// Runs independent items of the tuner's own work (lowering candidates for features, building
// kernels) on one worker per core of the tuner host: workers claim items through one atomic
// counter, the caller works too, and RunOnWorkers returns when every item is done.
// `work(i)` must be safe to call from several threads at once for different i.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

namespace tunefarm::tuner {

// 0 workers: one per core of this host.
template <typename Work>
void RunOnWorkers(size_t items, size_t workers, const Work& work) {
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  auto claim = [&] {
    for (size_t i = next++; i < items; i = next++) work(i);
  };
  std::vector<std::thread> threads;
  for (size_t w = 1; w < std::min(workers, items); ++w) threads.emplace_back(claim);
  claim();
  for (std::thread& t : threads) t.join();
}

// Drops the values of `items` on every core and empties it. Dropping a lowered loop nest is
// thousands of node frees; the search drops thousands of them a round.
template <typename T>
void ReleaseOnWorkers(std::vector<std::shared_ptr<T>>* items) {
  RunOnWorkers(items->size(), 0, [&](size_t i) { (*items)[i].reset(); });
  items->clear();
}
template <typename Key, typename T>
void ReleaseOnWorkers(std::unordered_map<Key, std::shared_ptr<T>>* items) {
  std::vector<std::shared_ptr<T>> values;
  values.reserve(items->size());
  for (auto& [key, value] : *items) values.push_back(std::move(value));
  items->clear();
  ReleaseOnWorkers(&values);
}

}  // namespace tunefarm::tuner
