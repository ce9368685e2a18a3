// Numbers in text, normalised so that the same quantity written three ways compares equal:
// 232448, "227 KiB" and 0x38c00 are one shared-memory size; "1.5 ms" and "1500 us" one time;
// "50%" and 0.5 one fraction. The held-to-evidence check (evidence_check.h) asks whether every
// number of a claim occurs in what the request was given. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace av {

struct Quantity {
  std::string text;            // as written, unit included: "227 KiB"
  std::vector<double> values;  // the number itself and each unit-scaled reading
  // Per value: half its last printed digit (the tolerance a rounded figure is quoted with).
  std::vector<double> half_steps;
  size_t offset = 0;  // where it starts in the text
};

// Every number not part of a word (sm_90, fp8, e4m3 are not numbers; 128x64 is two).
std::vector<Quantity> ExtractQuantities(std::string_view text);

// The values of every number of `text`, sorted, for lookups.
class QuantityIndex {
 public:
  void Add(std::string_view text);
  // True when some reading of `q` equals some number of the index, up to the rounding
  // of `q` as printed ("0.215" matches 0.21503; "232448" only 232448; "227 KiB" matches
  // 232448 and 232000 bytes).
  bool Supports(const Quantity& q) const;
  size_t size() const { return values_.size(); }

 private:
  void Sort() const;
  mutable std::vector<double> values_;
  mutable bool sorted_ = true;
};

// Whether a claim speaks of shared memory, registers, occupancy, throughput, errors or
// times (the claims whose numbers must be in the evidence).
bool ClaimHasMeasuredTopic(std::string_view claim);

}  // namespace av
