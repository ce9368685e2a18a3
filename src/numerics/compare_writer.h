// Renderers of a CompareReport: a short human-readable block for the terminal and the
// record of doc/formats/compare-json.md (schema/compare_json.h writes it as JSON).
// Writers only format what the report holds; they compute nothing. Pure functions, any
// thread.
#pragma once

#include <string>

#include "numerics/compare.h"
#include "schema/compare_json.h"

namespace av {

// How the inputs were named on the command line (for the report's header).
struct CompareInputs {
  std::string candidate;
  std::string reference;
  std::string lowprec;  // empty when not given
  // sha256 of the files the tensors were read from (empty: not computed): the evidence
  // names the bytes it judged.
  std::string candidate_sha256;
  std::string reference_sha256;
  std::string lowprec_sha256;
};

std::string FormatCompareText(const CompareReport& report, const CompareInputs& inputs);
// The file's model (no provenance: the caller adds it for a standalone file).
CompareRecord CompareReportToRecord(const CompareReport& report, const CompareInputs& inputs);

}  // namespace av
