// A bounded set of generated inputs shared between the cases of one numerics run (the
// case builder's key/value caches and GEMM operands, keyed by input family: case_builder.h
// InputFamily). Thread-safe: see the class comment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/status.h"
#include "reference/ref_ops.h"

namespace av {

// Inputs generated once and handed to every case that asks for the same key: a bounded,
// least-recently-used set (at most `max_entries`, and `max_bytes` unless one entry alone
// is larger). Tensors handed out share their buffers; nobody writes them (a permutation
// variant rewrites a copy). Any thread: two threads asking for one key get one
// generation, the second waiting for the first. A failed make() is returned, not kept.
class SharedInputs {
 public:
  SharedInputs(size_t max_entries, int64_t max_bytes);
  ~SharedInputs();
  SharedInputs(const SharedInputs&) = delete;
  SharedInputs& operator=(const SharedInputs&) = delete;

  // The tensors kept under `key`, else make()'s, kept.
  Result<NamedTensors> GetOrMake(const std::string& key,
                                 const std::function<Result<NamedTensors>()>& make);

  int64_t made() const;    // entries generated
  int64_t reused() const;  // entries handed out again
  // Drops every finished entry (tensors already handed out stay alive with their holders).
  // For when no case will be built any more.
  void Clear();

 private:
  struct Entry;
  void Evict();  // with mu_ held
  mutable std::mutex mu_;
  std::list<std::pair<std::string, std::shared_ptr<Entry>>> lru_;  // most recent first
  size_t max_entries_;
  int64_t max_bytes_;
  int64_t made_ = 0, reused_ = 0;
};

}  // namespace av
