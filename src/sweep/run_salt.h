// A numerics run's salt: 64 bits that key every input stream with the case and seed
// (sweep/rng.h StreamKey), draw the run's extra cases (sweep/drawn_cases.h) and shuffle
// its case folders, so no two runs hand a candidate the same sweep. Recorded in
// numerics.json as 16 hex digits; `numerics --salt HEX` gives it back to reproduce a run.
// Format: doc/formats/candidate-protocol.md ("Fresh inputs every run"). Any thread.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace av {

// A fresh salt from the kernel's random source; never 0, which means unsalted.
uint64_t FreshSalt();

// --salt: 1 to 16 hexadecimal digits, with or without "0x".
Result<uint64_t> ParseSalt(const std::string& text);

// 16 lowercase hex digits, as numerics.json records it.
std::string SaltHex(uint64_t salt);

}  // namespace av
