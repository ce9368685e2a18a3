#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace av {

int ResolveThreadCount(int requested) {
  if (requested > 0) return requested;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void ParallelFor(int64_t units, int threads, const std::function<void(int64_t, int)>& fn) {
  if (units <= 0) return;
  const int workers = static_cast<int>(std::min<int64_t>(ResolveThreadCount(threads), units));
  std::atomic<int64_t> next{0};
  auto loop = [&](int worker) {
    for (int64_t u = next.fetch_add(1); u < units; u = next.fetch_add(1)) fn(u, worker);
  };
  // Threads are started per call: the ops that use this run for milliseconds or more, and
  // a thread start costs tens of microseconds, so a persistent pool would buy nothing.
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(loop, w);
  loop(0);
  for (std::thread& t : pool) t.join();
}

}  // namespace av
