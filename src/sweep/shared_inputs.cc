#include "sweep/shared_inputs.h"

#include <algorithm>

namespace av {

struct SharedInputs::Entry {
  std::mutex mu;  // held while the tensors are made
  bool ready = false;
  NamedTensors tensors;
  int64_t bytes = 0;
};

SharedInputs::SharedInputs(size_t max_entries, int64_t max_bytes)
    : max_entries_(std::max<size_t>(max_entries, 1)), max_bytes_(max_bytes) {}
SharedInputs::~SharedInputs() = default;

Result<NamedTensors> SharedInputs::GetOrMake(const std::string& key,
                                             const std::function<Result<NamedTensors>()>& make) {
  std::shared_ptr<Entry> e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it =
        std::find_if(lru_.begin(), lru_.end(), [&](const auto& kv) { return kv.first == key; });
    if (it != lru_.end()) {
      e = it->second;
      lru_.splice(lru_.begin(), lru_, it);
    } else {
      e = std::make_shared<Entry>();
      lru_.emplace_front(key, e);
    }
  }
  // ready, tensors and bytes are written under both locks: read under either.
  std::lock_guard<std::mutex> making(e->mu);
  if (!e->ready) {
    Result<NamedTensors> made = make();  // without mu_: other keys go on
    std::lock_guard<std::mutex> lock(mu_);
    if (!made.ok()) {
      // Not kept: the next asker tries again (and most likely fails the same way).
      lru_.remove_if([&](const auto& kv) { return kv.second == e; });
      return made.status();
    }
    e->tensors = *made;
    for (const auto& [name, t] : e->tensors) e->bytes += static_cast<int64_t>(t.nbytes());
    e->ready = true;
    ++made_;
    Evict();
    return made;
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++reused_;
  return e->tensors;
}

void SharedInputs::Evict() {
  int64_t bytes = 0;
  size_t kept = 0;
  for (auto it = lru_.begin(); it != lru_.end();) {
    const int64_t size = it->second->ready ? it->second->bytes : 0;
    // Entries still being made stay (their maker holds them); the most recent always stays.
    const bool over = kept >= max_entries_ || (kept > 0 && bytes + size > max_bytes_);
    if (over && it->second->ready) {
      it = lru_.erase(it);
      continue;
    }
    bytes += size;
    ++kept;
    ++it;
  }
}

void SharedInputs::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  lru_.remove_if([](const auto& kv) { return kv.second->ready; });
}

int64_t SharedInputs::made() const {
  std::lock_guard<std::mutex> lock(mu_);
  return made_;
}
int64_t SharedInputs::reused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reused_;
}

}  // namespace av
