// The compare report as a file: what `attnverify compare --json` writes, and the
// "compare" block of each output of a case in numerics.json. CompareRecord is the file's
// model; numerics/compare_writer.h builds it from a CompareReport. Numbers JSON cannot
// hold are the strings "nan", "inf", "-inf". Format: doc/formats/compare-json.md. Pure
// values; any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_reader.h"
#include "core/status.h"
#include "schema/provenance.h"

namespace av {

inline constexpr const char* kCompareJsonSchema = "attnverify.compare/2";
inline constexpr const char* kCompareJsonSchemaV1 = "attnverify.compare/1";

struct CompareElement {
  std::vector<int64_t> index;  // into the tensor's shape
  int64_t linear = 0;
  double candidate = 0, reference = 0, abs = 0, rel = 0;
};

struct CompareTensorInput {
  std::string spec;         // "out.safetensors:o" as given
  std::string file_sha256;  // of the whole file read; empty: not computed
  std::string dtype;
  std::vector<int64_t> shape;
};

struct CompareRuleRecord {
  std::string name;  // allclose, flashmla, cos_diff, lowprec_multiple, exact
  double atol = 0, rtol = 0, cos_tol = 0, k = 0;
  bool allow_nan = false, equal_nan = false;
  std::string defaults_source;
  std::optional<double> row_rel_l2;  // cos_diff's row bound, when set
};

// cos_diff with row_rel_l2: each row's relative L2 error (doc/formats/compare-json.md).
struct CompareRowErrors {
  int64_t rows = 0, over = 0;
  double worst = 0;
  std::vector<int64_t> worst_row;
};

struct CompareNonFiniteCounts {
  int64_t nan = 0, pos_inf = 0, neg_inf = 0;
};

struct CompareAxisShare {
  int64_t begin = 0, end = 0;  // [begin, end)
  double amount = 0, fraction = 0;
};

struct CompareAxis {
  int64_t axis = 0, size = 0, bucket = 1, indices_touched = 0;
  std::vector<CompareAxisShare> top;
};

struct CompareRecord {
  // Standalone files only (`attnverify compare --json`); a numerics.json block has none.
  Provenance provenance;
  bool has_provenance = false;
  std::string legacy_command;  // schema /1's "command" line: shown, never parsed

  bool passed = false;
  std::vector<std::string> failures;
  CompareTensorInput candidate, reference;
  std::optional<CompareTensorInput> lowprec_reference;
  CompareRuleRecord rule;
  int64_t numel = 0;
  struct {
    int64_t compared = 0;
    double max_abs = 0, max_rel = 0, mean_abs = 0, rmse = 0, cos_diff = 0, nmse = 0;
  } metrics;
  double rule_cos_diff = 0;
  std::optional<CompareRowErrors> row_errors;  // only with a row bound
  struct {
    bool defined = false;
    int64_t count = 0;
    double fraction = 0;
    int64_t nonfinite = 0;
  } mismatches;
  struct {
    double max_abs = 0, threshold = 0;
  } lowprec;
  struct {
    CompareNonFiniteCounts candidate, reference;
    int64_t position_mismatches = 0;
    std::vector<CompareElement> first_mismatches;
    int64_t excluded = 0;
  } nonfinite;
  std::vector<CompareElement> worst_abs, worst_rel;
  std::string breakdown_of;  // "mismatches" or "squared error"
  std::vector<CompareAxis> breakdown;
};

// JSON has no NaN or infinity: such values are the strings "nan", "inf", "-inf".
nlohmann::json JsonNumber(double value);

// `standalone`: the whole file (schema, tool, provenance); else the block numerics.json
// embeds.
nlohmann::json CompareToJson(const CompareRecord& record, bool standalone);
// A standalone file (schema /1 or /2).
Result<CompareRecord> ParseCompare(std::string_view text, const std::string& path);
// An embedded block at `where` of a document `in` reads. Absent fields keep their
// defaults (older files hold fewer).
Status ReadCompare(const JsonReader& in, const nlohmann::json& block, const std::string& where,
                   CompareRecord* out);

}  // namespace av
