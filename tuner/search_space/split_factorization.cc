#include "tuner/search_space/split_factorization.h"

#include <algorithm>
#include <map>

namespace tunefarm::tuner {
namespace {

// Counts the tuples by the quotient still to share out: with q left and k lengths to pick,
// count(q, k) = sum over divisors d of q of count(q / d, k - 1), and the last length is any
// divisor of q up to the cap.
class FactorizationCounter {
 public:
  FactorizationCounter(int64_t extent, int64_t max_innermost) : max_innermost_(max_innermost) {
    for (int64_t d = 1; d * d <= extent; ++d) {
      if (extent % d != 0) continue;
      divisors_.push_back(d);
      if (d != extent / d) divisors_.push_back(extent / d);
    }
    std::sort(divisors_.begin(), divisors_.end());
  }

  uint64_t Count(int64_t q, int k) {
    auto [it, fresh] = memo_.try_emplace({q, k}, 0);
    if (!fresh) return it->second;
    uint64_t n = 0;
    for (int64_t d : divisors_) {
      if (d > q) break;
      if (q % d != 0) continue;
      n += k == 1 ? (d <= max_innermost_ ? 1 : 0) : Count(q / d, k - 1);
    }
    it->second = n;
    return n;
  }

  // The tuple with index `index` in the order the counts walk (lengths ascending, outermost first).
  std::vector<int64_t> Nth(int64_t q, int k, uint64_t index) {
    std::vector<int64_t> out;
    for (; k > 0; --k) {
      for (int64_t d : divisors_) {
        if (d > q) break;
        if (q % d != 0) continue;
        uint64_t here = k == 1 ? (d <= max_innermost_ ? 1 : 0) : Count(q / d, k - 1);
        if (index < here) {
          out.push_back(d);
          q /= d;
          break;
        }
        index -= here;
      }
    }
    return out;
  }

 private:
  int64_t max_innermost_;
  std::vector<int64_t> divisors_;
  std::map<std::pair<int64_t, int>, uint64_t> memo_;
};

}  // namespace

uint64_t CountFactorizations(int64_t extent, int n, int64_t max_innermost) {
  if (extent <= 0 || n <= 0 || max_innermost < 1) return 0;
  return FactorizationCounter(extent, max_innermost).Count(extent, n);
}

std::vector<int64_t> SampleFactorization(int64_t extent, int n, int64_t max_innermost, std::mt19937_64& rng) {
  if (extent <= 0 || n <= 0) return std::vector<int64_t>(std::max(n, 0), 1);
  FactorizationCounter counter(extent, std::max<int64_t>(max_innermost, 1));
  const uint64_t total = counter.Count(extent, n);  // at least 1: all ones
  return counter.Nth(extent, n, std::uniform_int_distribution<uint64_t>(0, total - 1)(rng));
}

}  // namespace tunefarm::tuner
