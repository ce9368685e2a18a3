// pytest's JUnit XML (`pytest --junitxml FILE`) as the report reads it: each <testcase>
// with the properties the pytest_attnverify plugin records (attnverify_case,
// attnverify_verdict, attnverify_reason) and whether pytest saw it fail. The file is
// untrusted: a small parser of the XML subset pytest writes (elements, attributes, text,
// comments, CDATA, the five predefined and numeric character references); a DOCTYPE (so
// any entity declaration), an unknown entity, more than 64 MiB or nesting deeper than 64 is
// an error naming FILE:LINE. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av {

struct JUnitCase {
  std::string name, classname;  // pytest's test id parts
  int64_t line = 0;             // of <testcase> in the file
  std::string av_case;          // attnverify_case ("" when the test recorded none)
  std::string av_verdict;       // attnverify_verdict: "pass", "fail", "error"
  std::string av_reason;        // attnverify_reason
  bool failed = false;          // a <failure> or <error> child
  bool skipped = false;         // a <skipped> child
};

struct JUnitReport {
  std::vector<JUnitCase> cases;  // in file order
};

inline constexpr size_t kMaxJUnitBytes = 64u << 20;
inline constexpr int kMaxJUnitDepth = 64;

// `path` names the file in errors ("reports/pytest.xml:12: ...").
Result<JUnitReport> ParseJUnitXml(std::string_view text, const std::string& path);

}  // namespace av
