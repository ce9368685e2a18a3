// Renderers of a CompareReport: a short human-readable block for the terminal and the
// JSON document of doc/formats/compare-json.md. Writers only format what the report
// holds; they compute nothing. Pure functions, any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "numerics/compare.h"

namespace av {

// How the inputs were named on the command line (for the report's header).
struct CompareInputs {
  std::string candidate;
  std::string reference;
  std::string lowprec;  // empty when not given
  // sha256 of the files the tensors were read from (empty: not computed), and the
  // command line that produced the report: the evidence names both.
  std::string candidate_sha256;
  std::string reference_sha256;
  std::string lowprec_sha256;
  std::string command;
};

inline constexpr const char* kCompareJsonSchema = "attnverify.compare/1";

std::string FormatCompareText(const CompareReport& report, const CompareInputs& inputs);
nlohmann::json CompareReportToJson(const CompareReport& report, const CompareInputs& inputs);

// JSON has no NaN or infinity: such values are written as the strings "nan", "inf",
// "-inf"; finite values as numbers.
nlohmann::json JsonNumber(double value);

}  // namespace av
