// ParallelFor: runs fn(unit, worker) for every unit in [0, units) on up to `threads` worker
// threads (0 = one per hardware thread). Units are handed out in increasing order from a
// shared counter, so which worker runs a unit varies, but each unit runs exactly once on
// one worker; callers that write each output from exactly one unit therefore get results
// independent of the thread count. `worker` (0..threads-1) indexes per-worker scratch.
// Blocks until every unit is done. Callable from any thread; fn must not throw.
#pragma once

#include <cstdint>
#include <functional>

namespace av {

// The worker count ParallelFor will use for `requested` (0 = hardware threads, at least 1).
int ResolveThreadCount(int requested);

void ParallelFor(int64_t units, int threads,
                 const std::function<void(int64_t unit, int worker)>& fn);

}  // namespace av
