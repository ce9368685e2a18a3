// The checklist as a table: every check the engine can produce is one row of kChecks
// (id, title, item, judge), in the order the report lists them, like the command table of
// cli/commands.cc. No check id is written anywhere else: judges take their row, waivers
// are validated against it, and doc/report.md's check table is tested against it.
// Internal to report/; the table is constant, so any thread.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "report/checklist.h"

namespace av::checklist {

struct Context;
struct CheckDef;

// Judges one check from the evidence. nullopt: the check does not apply to this package
// (e.g. 2.window when no attention op was swept, 1.dtypes when there is no numerics.json).
using Judge = std::optional<Check> (*)(const Context& ctx, const CheckDef& def);

struct CheckDef {
  std::string_view id;     // "2.window": item number, dot, name (doc/report.md)
  std::string_view title;  // "sliding window"
  int item = 0;            // 1..8
  Judge judge = nullptr;
  int arg = 0;  // a judge shared by several rows tells them apart by this (mask category)
};

std::span<const CheckDef> Checks();
// The row of `id`; nullptr when no check has that id.
const CheckDef* FindCheckDef(std::string_view id);

inline constexpr int kItemCount = 8;
// "Numerical correctness", ..., "Evidence" for items 1..8.
std::string_view ItemTitle(int item);

}  // namespace av::checklist
