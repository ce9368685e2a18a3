#include "agent/rounds.h"

#include <gtest/gtest.h>

#include "agent/agent_test_util.h"
#include "llm/provider_client.h"
#include "llm/provider_config.h"
#include "policy/command_policy.h"

namespace av {
namespace {

using testing::AgentPackageDir;
using testing::MakeAgentPackage;

TEST(AgentRounds, ErrorWindowsKeepTheLogsOwnLineNumbers) {
  std::string log;
  for (int i = 1; i <= 40; ++i) log += "line " + std::to_string(i) + "\n";
  log += "ptxas error   : uses too much shared data\n";  // line 41
  for (int i = 42; i <= 60; ++i) log += "line " + std::to_string(i) + "\n";
  std::set<int64_t> shown;
  std::string w = ErrorWindows("logs/build.log", log, 100, &shown);
  EXPECT_NE(w.find("logs/build.log:41: ptxas error"), std::string::npos) << w;
  EXPECT_EQ(shown, (std::set<int64_t>{38, 39, 40, 41, 42, 43, 44}));
  EXPECT_EQ(w.find("line 1\n"), std::string::npos);
  shown.clear();
  EXPECT_TRUE(ErrorWindows("logs/x.log", "all good\nok\n", 100, &shown).empty());
}

TEST(AgentRounds, ADiffOverTheBudgetIsSplitIntoWholeHunkGroups) {
  AgentPackageDir d;
  MakeAgentPackage(&d, "http://127.0.0.1:9");
  // A flashmla diff of 30 hunks, each about 2 KB, in three functions.
  std::string diff =
      "diff --git a/src/flash_mla/big.h b/src/flash_mla/big.h\n--- a/src/flash_mla/big.h\n"
      "+++ b/src/flash_mla/big.h\n";
  for (int h = 0; h < 30; ++h) {
    int start = 1 + h * 100;
    diff += "@@ -" + std::to_string(start) + ",1 +" + std::to_string(start) + ",1 @@ void fn" +
            std::to_string(h / 10) + "()\n";
    diff += "-" + std::string(1000, 'a') + "\n+" + std::string(1000, 'b') + "\n";
  }
  testing::WriteText(d.package + "/diff/flashmla.diff", diff);
  Result<AgentPackage> p = LoadAgentPackage(d.config);
  ASSERT_TRUE(p.ok()) << p.status().message();
  RoundInputs in;
  in.package = &*p;
  in.system = "prompt";
  in.budget_tokens = 1024 + 12000;  // room for ~36 KB of diff per request
  AgentStagePlan plan = PlanStage("diff_review", in);
  std::vector<const AgentRequest*> flash;
  for (const AgentRequest& r : plan.requests) {
    if (r.kernel == "flashmla") flash.push_back(&r);
  }
  ASSERT_GE(flash.size(), 2u);
  int64_t hunks_seen = 0;
  for (size_t i = 0; i < flash.size(); ++i) {
    EXPECT_EQ(flash[i]->part, static_cast<int>(i + 1));
    EXPECT_LE(EstimateTokens(flash[i]->user), in.budget_tokens);
    hunks_seen +=
        static_cast<int64_t>(flash[i]->context.new_lines.at("src/flash_mla/big.h").size());
    // A function's hunks are never split across requests.
    for (int fn = 0; fn < 3; ++fn) {
      std::string name = "void fn" + std::to_string(fn) + "()";
      if (flash[i]->user.find(name) == std::string::npos) continue;
      for (size_t j = 0; j < flash.size(); ++j) {
        if (j != i) {
          EXPECT_EQ(flash[j]->user.find(name), std::string::npos) << name;
        }
      }
    }
  }
  EXPECT_EQ(hunks_seen, 30);  // every changed line went to some request
}

TEST(AgentRounds, CrossModuleSeesEveryComponentAndFinalTheEarlierFindings) {
  AgentPackageDir d;
  MakeAgentPackage(&d, "http://127.0.0.1:9");
  Result<AgentPackage> p = LoadAgentPackage(d.config);
  ASSERT_TRUE(p.ok()) << p.status().message();
  RoundInputs in;
  in.package = &*p;
  in.system = "prompt";
  in.budget_tokens = 60000;
  AgentStagePlan cross = PlanStage("cross_module", in);
  ASSERT_EQ(cross.requests.size(), 1u);
  EXPECT_NE(cross.requests[0].user.find("src/flash_mla/splitk_decode.h"), std::string::npos);
  EXPECT_NE(cross.requests[0].user.find("src/deep_gemm/tile.cuh"), std::string::npos);
  in.earlier_findings = R"([{"stage": "diff_review", "claim": "split order"}])";
  AgentStagePlan final_plan = PlanStage("final", in);
  ASSERT_EQ(final_plan.requests.size(), 1u);
  EXPECT_NE(final_plan.requests[0].user.find("split order"), std::string::npos);
  EXPECT_NE(final_plan.requests[0].user.find("acceptance_checklist.md"), std::string::npos);
}

// A component diff of `hunks` hunks whose lines are heavy in what JSON escapes (quotes,
// backslashes, tabs, a control byte) and in non-ASCII text: the text's bytes understate
// the request's size on the wire.
// `lines_per_hunk` is even.
std::string EscapeHeavyDiff(const std::string& path, int hunks, int lines_per_hunk) {
  std::string diff = "diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" +
                     path + "\n";
  for (int h = 0; h < hunks; ++h) {
    const int start = 1 + h * (lines_per_hunk + 10);
    const std::string n = std::to_string(lines_per_hunk / 2);  // half deleted, half added
    diff += "@@ -" + std::to_string(start) + "," + n + " +" + std::to_string(start) + "," + n +
            " @@ void f" + std::to_string(h) + "()\n";
    for (int i = 0; i < lines_per_hunk; ++i) {
      std::string text = "\tprintf(\"\\\"%d\\\"\\n\", x[" + std::to_string(i) +
                         "]); // \"\u00e9t\u00e9\" \x01\\\\";
      diff += (i % 2 == 0 ? "-" : "+") + text + "\n";
    }
  }
  return diff;
}

// Issue 37: a large rewrite's cross_module request came to 60,539 tokens for a budget of
// 60,000 (20,067 for 20,000): the planner counted the text, not the request as sent.
TEST(AgentRounds, EveryRequestFitsItsBudgetAsSent) {
  AgentPackageDir d;
  MakeAgentPackage(&d, "http://127.0.0.1:9");
  Result<ProviderConfig> provider = LoadProviderConfig(d.config);
  ASSERT_TRUE(provider.ok()) << provider.status().message();
  FakeHttpTransport transport([](const HttpRequest&) { return HttpResponse{}; });
  ProviderClientOptions copts;
  copts.transport = &transport;
  copts.environment = [] { return std::map<std::string, std::string>{}; };
  ProviderClient client(*provider, copts);
  const std::string system(5000, 'p');  // a prompt of about 1,700 tokens
  for (int size : {3, 40, 400}) {
    testing::WriteText(d.package + "/diff/flashmla.diff",
                       EscapeHeavyDiff("src/flash_mla/big.h", size, 24));
    testing::WriteText(d.package + "/diff/deepgemm.diff",
                       EscapeHeavyDiff("src/deep_gemm/tile.cuh", size, 12));
    std::string log;
    for (int i = 0; i < size * 20; ++i) {
      log += "error: \"mismatch\" at \\x[" + std::to_string(i) + "]\n";
    }
    testing::WriteText(d.package + "/logs/build.log", log);
    Result<AgentPackage> p = LoadAgentPackage(d.config);
    ASSERT_TRUE(p.ok()) << p.status().message();
    for (int64_t budget : {2500, 4000, 9000, 20000, 60000}) {
      for (bool exact : {true, false}) {
        RoundInputs in;
        in.package = &*p;
        in.system = system;
        in.budget_tokens = budget;
        if (exact) {
          in.request_tokens = [&](const std::string& sys, const std::string& user) -> int64_t {
            CompletionRequest cr;
            cr.system = sys;
            cr.messages = {{"user", user}};
            Result<int64_t> n = client.EstimateRequestTokens(cr);
            EXPECT_TRUE(n.ok());
            return n.ok() ? *n : 0;
          };
        }
        for (const std::string& stage : {"diff_review", "test_log", "cross_module", "final"}) {
          AgentStagePlan plan = PlanStage(stage, in);
          ASSERT_FALSE(plan.requests.empty()) << stage << " " << plan.skipped;
          for (const AgentRequest& r : plan.requests) {
            CompletionRequest cr;
            cr.system = r.system;
            cr.messages = {{"user", r.user}};
            Result<int64_t> sent = client.EstimateRequestTokens(cr);
            ASSERT_TRUE(sent.ok());
            const int64_t measured = exact ? *sent : RequestTokens(in, r.system, r.user);
            EXPECT_LE(measured, budget - kRetryReserveTokens)
                << stage << " size " << size << " budget " << budget << " exact " << exact;
            if (exact) {
              // The client's own check would send it.
              EXPECT_LE(*sent, budget) << stage << " size " << size << " budget " << budget;
            }
            if (stage != "test_log" && stage != "final") {
              EXPECT_TRUE(r.context.had_diff) << stage << " budget " << budget;
            }
          }
        }
      }
    }
  }
}

TEST(AgentRounds, DocsDrawingsBinariesAndGeneratedFilesAreNamedNotSent) {
  AgentPackageDir d;
  MakeAgentPackage(&d, "http://127.0.0.1:9");
  auto file = [](const std::string& path, const std::string& body) {
    return "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\n--- /dev/null\n+++ b/" +
           path + "\n" + body;
  };
  auto lines = [](const std::string& text, int n) {
    std::string body = "@@ -0,0 +1," + std::to_string(n) + " @@\n";
    for (int i = 0; i < n; ++i) body += "+" + text + "\n";
    return body;
  };
  std::string svg_line = "<path d=\"M 10 10 L 20 20\" stroke=\"svg-marker-7e1\"/>";
  std::string diff =
      file("csrc/flash_mla/kernel.cu", lines("int kernel_marker_1 = 0;", 3)) +
      file("tests/test_flash_mla.py", lines("atol = 1e-3  # test_marker_2", 2)) +
      file("docs/figures/pipeline.svg", lines(svg_line, 2000)) +
      file("README.md", lines("readme_marker_3", 2)) +
      file("docs/conf.py", lines("doc_marker_4 = 1", 2)) +
      "diff --git a/assets/tile.png b/assets/tile.png\nnew file mode 100644\n"
      "Binary files /dev/null and b/assets/tile.png differ\n" +
      file("csrc/gen/tables.h", lines("// @generated by gen_tables.py, do_not_edit_marker_5", 2)) +
      file("package-lock.json", lines("\"lock_marker_6\": 1", 2)) +
      file("CMakeLists.txt", lines("add_library(cmake_marker_7)", 1));
  testing::WriteText(d.package + "/diff/flashmla.diff", diff);
  Result<AgentPackage> p = LoadAgentPackage(d.config);
  ASSERT_TRUE(p.ok()) << p.status().message();
  RoundInputs in;
  in.package = &*p;
  in.system = "prompt";
  in.budget_tokens = 60000;
  for (const std::string& stage : {"diff_review", "cross_module"}) {
    AgentStagePlan plan = PlanStage(stage, in);
    std::string sent;
    for (const AgentRequest& r : plan.requests) sent += r.user;
    for (const char* kept : {"kernel_marker_1", "test_marker_2", "cmake_marker_7"}) {
      EXPECT_NE(sent.find(kept), std::string::npos) << stage << ": " << kept;
    }
    for (const char* dropped : {"svg-marker-7e1", "readme_marker_3", "doc_marker_4",
                                "do_not_edit_marker_5", "lock_marker_6"}) {
      EXPECT_EQ(sent.find(dropped), std::string::npos) << stage << ": " << dropped;
    }
    // Named, with the reason, so the model knows they changed.
    EXPECT_NE(sent.find("docs/figures/pipeline.svg: drawing (.svg)"), std::string::npos) << stage;
    EXPECT_NE(sent.find("assets/tile.png: binary"), std::string::npos) << stage;
    EXPECT_NE(sent.find("csrc/gen/tables.h: generated"), std::string::npos) << stage;
    EXPECT_NE(sent.find("README.md: documentation"), std::string::npos) << stage;
    EXPECT_LT(sent.size(), 20000u) << stage << ": the 2000-line drawing stayed out";
  }
  // Its lines are not in any request's context: a finding citing the drawing is dropped.
  AgentStagePlan plan = PlanStage("diff_review", in);
  const AgentRequest* flash = nullptr;
  for (const AgentRequest& r : plan.requests) {
    if (r.kernel == "flashmla") flash = &r;
  }
  ASSERT_NE(flash, nullptr);
  AgentFinding f;
  f.file = "docs/figures/pipeline.svg";
  f.line = f.end_line = 5;
  f.item = 8;
  f.severity = Severity::kNote;
  f.claim = "the drawing changed";
  f.evidence = "diff";
  CheckedFinding c = CheckFinding(f, flash->context, *p, PermissionSettings{});
  EXPECT_EQ(c.drop, DropReason::kNoSuchLine) << c.why;
}

// A component that changed only a drawing has nothing a kernel reviewer reads.
TEST(AgentRounds, AComponentWithOnlyADrawingIsSkippedWithTheReason) {
  AgentPackageDir d;
  MakeAgentPackage(&d, "http://127.0.0.1:9");
  testing::WriteText(d.package + "/diff/flashmla.diff",
                     "diff --git a/docs/a.svg b/docs/a.svg\n--- a/docs/a.svg\n+++ b/docs/a.svg\n"
                     "@@ -1 +1 @@\n-<svg/>\n+<svg width=\"2\"/>\n");
  testing::WriteText(d.package + "/diff/deepgemm.diff", "");
  Result<AgentPackage> p = LoadAgentPackage(d.config);
  ASSERT_TRUE(p.ok()) << p.status().message();
  RoundInputs in;
  in.package = &*p;
  in.system = "prompt";
  in.budget_tokens = 60000;
  AgentStagePlan plan = PlanStage("diff_review", in);
  EXPECT_TRUE(plan.requests.empty());
  EXPECT_NE(plan.skipped.find("flashmla"), std::string::npos) << plan.skipped;
  EXPECT_NE(plan.skipped.find("drawings"), std::string::npos) << plan.skipped;
}

// perf.json with `base_us` and `head_us` launch durations of one kernel.
std::string PerfJson(const std::vector<double>& base_us, const std::vector<double>& head_us) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& [label, times] :
       {std::pair{"base", base_us}, std::pair{"head", head_us}}) {
    nlohmann::json launches = nlohmann::json::array();
    for (size_t i = 0; i < times.size(); ++i) {
      launches.push_back(
          {{"id", std::to_string(i)},
           {"grid", "(1, 16, 4)"},
           {"block", "(256, 1, 1)"},
           {"occupancy_limiter", ""},
           {"figures",
            {{"duration_ns",
              {{"value", times[i] * 1000}, {"unit", "ns"}, {"raw", std::to_string(times[i])},
               {"raw_unit", "us"}}}}}});
    }
    kernels.push_back({{"label", label},
                       {"shape", "b16_sk4096"},
                       {"tool", "ncu"},
                       {"tool_version", "details page"},
                       {"format", "ncu-details"},
                       {"name",
                        {{"raw", "splitk_decode_kernel(Params)"},
                         {"demangled", "splitk_decode_kernel(Params)"},
                         {"key", "splitk_decode_kernel"},
                         {"short", "splitk_decode_kernel"}}},
                       {"source", {{"file", std::string("ncu_") + label + ".csv"},
                                   {"sha256", std::string(64, 'a')}}},
                       {"launches", launches},
                       {"summary", nullptr}});
  }
  return nlohmann::json{{"schema", "attnverify.perf/1"}, {"kernels", kernels}}.dump(2);
}

// A package whose perf.json has the head 20 % slower than the base (10 us -> 12 us).
void MakeSlowerHeadPackage(AgentPackageDir* d) {
  MakeAgentPackage(d, "http://127.0.0.1:9");
  testing::WriteText(d->package + "/evidence/perf.json",
                     PerfJson({10, 10, 10, 10, 10}, {12, 12, 12, 12, 12}));
}

AgentStagePlan PlanPerf(const AgentPackage& p) {
  RoundInputs in;
  in.package = &p;
  in.system = "prompt";
  in.budget_tokens = 60000;
  return PlanStage("perf", in);
}

// Issue 37: the perf round was not sent evidence/perf.json, so the regression the tool
// computed could not be stated, and a finding stating it was dropped as unsupported.
TEST(AgentRounds, ThePerfRoundIsSentPerfJsonAndTheRegressionItComputed) {
  AgentPackageDir d;
  MakeSlowerHeadPackage(&d);
  Result<AgentPackage> p = LoadAgentPackage(d.config);
  ASSERT_TRUE(p.ok()) << p.status().message();
  AgentStagePlan plan = PlanPerf(*p);
  ASSERT_EQ(plan.requests.size(), 1u) << plan.skipped;
  const AgentRequest& r = plan.requests[0];
  EXPECT_NE(r.user.find("evidence/perf.json"), std::string::npos);
  EXPECT_NE(r.user.find("ratio 1.2000"), std::string::npos) << r.user;
  EXPECT_NE(r.user.find("20.0% slower"), std::string::npos) << r.user;
  EXPECT_NE(r.user.find("time gate fail"), std::string::npos) << r.user;
  AgentFinding f;
  f.item = 3;
  f.severity = Severity::kError;
  f.claim = "kernel time regressed: the head is 20% slower (median ratio 1.2)";
  f.evidence = "evidence/perf.json";
  CheckedFinding kept = CheckFinding(f, r.context, *p, PermissionSettings{});
  EXPECT_EQ(kept.drop, DropReason::kKept) << kept.why;
  f.claim = "kernel time regressed: the head is 35% slower";
  CheckedFinding invented = CheckFinding(f, r.context, *p, PermissionSettings{});
  EXPECT_EQ(invented.drop, DropReason::kUnsupportedNumber) << invented.why;
}

// The perf round judges with attnverify.toml as the agent command parsed it (its
// [profile] table), not with a second read of the file: a 50 % budget given only in the
// parsed text passes the 20 % slowdown that the file on disk (no [profile]) fails.
TEST(AgentRounds, ThePerfRoundJudgesWithTheConfigAsParsedOnce) {
  AgentPackageDir d;
  MakeSlowerHeadPackage(&d);
  const std::string on_disk = testing::ReadText(d.config);
  ASSERT_EQ(on_disk.find("[profile]"), std::string::npos);
  Result<PackageConfig> parsed =
      PackageConfig::Parse(on_disk + "\n[profile]\nmax_slowdown = 0.5\n", d.config);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  Result<AgentPackage> p = LoadAgentPackage(*parsed);
  ASSERT_TRUE(p.ok()) << p.status().message();
  AgentStagePlan plan = PlanPerf(*p);
  ASSERT_EQ(plan.requests.size(), 1u) << plan.skipped;
  EXPECT_NE(plan.requests[0].user.find("time gate pass"), std::string::npos)
      << plan.requests[0].user;
  EXPECT_EQ(plan.requests[0].user.find("time gate fail"), std::string::npos);
}

}  // namespace
}  // namespace av
