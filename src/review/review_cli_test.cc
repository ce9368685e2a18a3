// End-to-end: the real attnverify binary slices a temporary git repository holding the
// demo's split-k decode refactor, reviews the slice, and reviews diff files without a
// repository; bad input exits 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/sha256.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::RunShell;
using testing::TempDir;

std::string Av() { return ATTNVERIFY_BINARY; }

void Put(const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

const char* kHeaderBefore =
    "// Split-k MLA decode: tile sizes and the causal mask.\n"
    "#pragma once\n"
    "\n"
    "namespace flash_mla {\n"
    "\n"
    "constexpr int kHeadDim = 576;\n"
    "constexpr int kBlockN = 64;     // keys per tile\n"
    "constexpr int kNumStages = 2;\n"
    "\n"
    "// Bottom-right aligned: row r of s_q sees keys c <= r + (s_k - s_q).\n"
    "__host__ __device__ inline bool causal_masked(int row, int col, int s_q, int s_k) {\n"
    "  return col > row + (s_k - s_q);\n"
    "}\n"
    "\n"
    "}  // namespace flash_mla\n";

const char* kToml =
    "[slice]\nrepo = \"..\"\nbase = \"HEAD~1\"\n\n"
    "[components]\nflashmla = [\"src/flash_mla/**\"]\ndeepgemm = [\"src/deep_gemm/**\"]\n"
    "main_attention = [\"src/main_attention/**\"]\n\n"
    "[review]\nreviewer = \"builtin\"\n";

// repo/ with base and head commits of the demo refactor and repo/attention-verify/.
std::string MakeDemoRepo(const TempDir& dir) {
  std::string repo = dir.File("repo");
  Put(repo + "/src/flash_mla/splitk_decode.h", kHeaderBefore);
  Put(repo + "/src/flash_mla/splitk_decode.cu", "#include \"splitk_decode.h\"\n// kernel\n");
  Put(repo + "/README.md", "demo\n");
  Put(repo + "/attention-verify/attnverify.toml", kToml);
  auto r = RunShell("cd '" + repo +
                    "' && git init -q . && git config user.name t && "
                    "git config user.email t@example.com && git add -A && git commit -qm base");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::string after = kHeaderBefore;
  after.replace(after.find("kBlockN = 64;     "), 18, "kBlockN = 128;    ");
  after.replace(after.find("col > row + (s_k - s_q)"), 23, "col > row");
  Put(repo + "/src/flash_mla/splitk_decode.h", after);
  Put(repo + "/README.md", "demo, bigger tiles\n");
  r = RunShell("cd '" + repo + "' && git commit -qam head");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return repo;
}

TEST(ReviewCliTest, SliceThenReviewTheDemoRefactor) {
  TempDir dir;
  std::string repo = MakeDemoRepo(dir);
  std::string pkg = repo + "/attention-verify";
  auto s = RunShell("cd '" + repo + "' && '" + Av() +
                    "' slice --config attention-verify/attnverify.toml");
  ASSERT_EQ(s.exit_code, 0) << s.output;
  EXPECT_NE(s.output.find("flashmla"), std::string::npos) << s.output;
  for (const char* f : {"diff/flashmla.diff", "diff/deepgemm.diff", "diff/main_attention.diff",
                        "diff/unassigned.diff", "evidence/slice.json"}) {
    EXPECT_TRUE(std::filesystem::exists(pkg + "/" + f)) << f;
  }
  EXPECT_EQ(std::filesystem::file_size(pkg + "/diff/deepgemm.diff"), 0u);
  auto slice = nlohmann::json::parse(*ReadFileToString(pkg + "/evidence/slice.json"));
  EXPECT_EQ(slice["provenance"]["argv"], nlohmann::json({"attnverify", "slice", "--config",
                                                         "attention-verify/attnverify.toml"}));
  EXPECT_EQ(slice["provenance"]["head_commit"], slice["head_commit"]);
  EXPECT_EQ(slice["base"], "HEAD~1");
  auto head = RunShell("cd '" + repo + "' && git rev-parse HEAD");
  EXPECT_EQ(slice["head_commit"].get<std::string>() + "\n", head.output);
  EXPECT_EQ(slice["components"][0]["sha256"], *Sha256File(pkg + "/diff/flashmla.diff"));
  EXPECT_EQ(slice["components"][3]["files"][0]["path"], "README.md");

  auto r = RunShell("cd '" + repo + "' && '" + Av() +
                    "' review --config attention-verify/attnverify.toml");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto review = nlohmann::json::parse(*ReadFileToString(pkg + "/evidence/review.json"));
  EXPECT_EQ(review["schema"], "attnverify.review/2");
  EXPECT_EQ(review["reviewer"], "builtin");
  EXPECT_EQ(review["base_commit"], slice["base_commit"]);
  EXPECT_EQ(review["diffs"][0]["path"], "diff/flashmla.diff");
  EXPECT_EQ(review["diffs"][0]["sha256"], slice["components"][0]["sha256"]);
  const auto& f = review["findings"];
  ASSERT_EQ(f.size(), 2u) << f.dump(2);
  EXPECT_EQ(f[0]["id"], "F001");
  EXPECT_EQ(f[0]["rule"], "tile.constant_changed");
  EXPECT_EQ(f[0]["file"], "src/flash_mla/splitk_decode.h");
  EXPECT_EQ(f[0]["line"], 7);
  EXPECT_EQ(f[0]["component"], "flashmla");
  EXPECT_EQ(f[0]["checklist_item"], 4);
  EXPECT_EQ(f[0]["verify"],
            nlohmann::json({"attnverify", "build", "--config", "attention-verify/attnverify.toml",
                            "--base", "HEAD~1"}));
  EXPECT_NE(f[0]["message"].get<std::string>().find("kBlockN 64 -> 128"), std::string::npos);
  EXPECT_EQ(f[1]["rule"], "mask.expression_changed");
  EXPECT_EQ(f[1]["line"], 12);
  EXPECT_EQ(f[1]["checklist_item"], 2);
  auto md = ReadFileToString(pkg + "/reports/review_01.md");
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md->find("F002 mask expression changed — `src/flash_mla/splitk_decode.h:12`"),
            std::string::npos)
      << *md;
  EXPECT_NE(md->find("- return col > row + (s_k - s_q);"), std::string::npos) << *md;

  // Editing a sliced diff afterwards is caught.
  Put(pkg + "/diff/flashmla.diff", "");
  auto edited = RunShell("cd '" + repo + "' && '" + Av() +
                         "' review --config attention-verify/attnverify.toml");
  EXPECT_EQ(edited.exit_code, 2) << edited.output;
  EXPECT_NE(edited.output.find("changed since `attnverify slice`"), std::string::npos)
      << edited.output;
}

TEST(ReviewCliTest, ReviewDiffFilesWithoutARepository) {
  TempDir dir;
  std::string diff = testing::SourceDir() + "/testdata/review/flashmla_splitk_refactor.diff";
  auto r =
      RunShell("cd '" + dir.path() + "' && '" + Av() + "' review --diff '" + diff + "' --out out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto review = nlohmann::json::parse(*ReadFileToString(dir.File("out/evidence/review.json")));
  EXPECT_EQ(review["base_commit"], "");
  EXPECT_EQ(review["diffs"][0]["component"], "flashmla_splitk_refactor");
  EXPECT_EQ(review["findings"].size(), 5u) << review.dump(2);
  EXPECT_TRUE(std::filesystem::exists(dir.File("out/reports/review_01.md")));
  auto rules = RunShell("'" + Av() + "' review --rules");
  EXPECT_EQ(rules.exit_code, 0);
  EXPECT_NE(rules.output.find("sync.barrier_removed"), std::string::npos);
}

TEST(ReviewCliTest, BadInputExitsTwo) {
  TempDir dir;
  // Not a git repository.
  Put(dir.File("pkg/attnverify.toml"), kToml);
  auto r = RunShell("'" + Av() + "' slice --config '" + dir.File("pkg/attnverify.toml") + "'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("not a git repository"), std::string::npos) << r.output;
  // Unknown key.
  Put(dir.File("bad/attnverify.toml"), "[slice]\nrepo = \"..\"\nbranch = \"x\"\n");
  r = RunShell("'" + Av() + "' slice --config '" + dir.File("bad/attnverify.toml") + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("attnverify.toml:3:1: unknown key \"branch\" in [slice]"),
            std::string::npos)
      << r.output;
  // Review before slice.
  r = RunShell("'" + Av() + "' review --config '" + dir.File("pkg/attnverify.toml") + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("run `attnverify slice"), std::string::npos) << r.output;
  // A diff that escapes the repository.
  Put(dir.File("evil.diff"),
      "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n");
  r = RunShell("cd '" + dir.path() + "' && '" + Av() + "' review --diff evil.diff");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("evil.diff:1: path \"../../etc/passwd\" has a \"..\" component"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir.File("evidence/review.json")));
}

// `git format-patch` output used to fail with `x.patch:N: unexpected line outside a
// file's hunks: "-- "` (its signature trailer).
TEST(ReviewCliRegression, FormatPatchSignatureTrailerIsAccepted) {
  TempDir dir;
  std::string repo = MakeDemoRepo(dir);
  auto fp = RunShell("cd '" + repo + "' && git format-patch --root -2 --stdout > '" +
                     dir.File("series.patch") + "'");
  ASSERT_EQ(fp.exit_code, 0) << fp.output;
  ASSERT_NE(ReadFileToString(dir.File("series.patch"))->find("\n-- \n"), std::string::npos);
  auto r =
      RunShell("cd '" + dir.path() + "' && '" + Av() + "' review --diff series.patch --out out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto review = nlohmann::json::parse(*ReadFileToString(dir.File("out/evidence/review.json")));
  bool tile = false;
  for (const auto& f : review["findings"]) tile = tile || f["rule"] == "tile.constant_changed";
  EXPECT_TRUE(tile) << review.dump(2);
}

// A commit that loosens the package's own tolerances, sweep and policy used to be reviewed
// without a word (reliability M7). Now each changed file is a package.config_changed finding
// (error when anything is loosened) and review.json lists old -> new per setting.
TEST(ReviewCliRegression, LoosenedPackageConfigInTheReviewedRangeIsAnError) {
  TempDir dir;
  std::string repo = MakeDemoRepo(dir);
  const std::string pkg = repo + "/attention-verify";
  const std::string source = testing::SourceDir();
  Put(pkg + "/attnverify.toml", std::string(kToml) +
                                    "\n[numerics]\nshapes = \"config/shapes.json\"\n"
                                    "tolerances = \"config/tolerances.json\"\n\n[policy]\n"
                                    "required = [1, 2, 3, 4, 5, 6, 7, 8]\n");
  ASSERT_EQ(
      RunShell("mkdir -p '" + pkg + "/config' && cp '" + source + "/config/tolerances.json' '" +
               source + "/config/shapes.json' '" + pkg + "/config/' && cd '" + repo +
               "' && git add -A && git commit -qm package && "
               "echo more >> README.md && git commit -qam readme")
          .exit_code,
      0);
  // Unchanged config: compared, nothing to say.
  auto s0 = RunShell("cd '" + repo + "' && '" + Av() +
                     "' slice --config attention-verify/attnverify.toml && '" + Av() +
                     "' review --config attention-verify/attnverify.toml");
  ASSERT_EQ(s0.exit_code, 0) << s0.output;
  auto clean = nlohmann::json::parse(*ReadFileToString(pkg + "/evidence/review.json"));
  EXPECT_EQ(clean["config_reviewed"], true) << clean.dump(2);
  EXPECT_TRUE(clean["config_changes"].empty()) << clean.dump(2);

  // The loosening commit.
  auto edit = RunShell(
      "cd '" + pkg +
      "' && sed -i 's/\"rtol\": 0.015703125, \"cos_tol\": 5e-6/\"rtol\": 1e300, "
      "\"cos_tol\": 5e-6/' config/tolerances.json && sed -i '/\"lse\": {\"\\*\": {\"rule\": "
      "\"flashmla\", \"atol\": 1e-6/s/\"rule\": \"flashmla\",/\"rule\": \"flashmla\", "
      "\"allow_nan\": true,/' "
      "config/tolerances.json && sed -i 's/\"h_q\": \\[16, 64\\]/\"h_q\": [16]/' "
      "config/shapes.json && "
      "sed -i 's/^required = .*/required = [1, 2, 3, 5, 6, 7, 8]\\nwaive = { \"2.window\" = "
      "\"later\" }/' "
      "attnverify.toml && cd .. && git commit -qam 'loosen the package'");
  ASSERT_EQ(edit.exit_code, 0) << edit.output;
  auto s1 = RunShell("cd '" + repo + "' && '" + Av() +
                     "' slice --config attention-verify/attnverify.toml && '" + Av() +
                     "' review --config attention-verify/attnverify.toml");
  ASSERT_EQ(s1.exit_code, 0) << s1.output;
  auto review = nlohmann::json::parse(*ReadFileToString(pkg + "/evidence/review.json"));
  EXPECT_EQ(review["config_reviewed"], true);
  std::map<std::string, nlohmann::json> changes;  // "file json_path" -> change
  for (const auto& c : review["config_changes"]) {
    changes[c["file"].get<std::string>() + " " + c["json_path"].get<std::string>()] = c;
  }
  const auto& rtol = changes["config/tolerances.json $.ops.mla_decode.o.*.rtol"];
  EXPECT_EQ(rtol["effect"], "loosened") << review["config_changes"].dump(2);
  EXPECT_EQ(rtol["old"], 0.015703125);
  EXPECT_EQ(rtol["new"], 1e300);
  EXPECT_EQ(changes["config/tolerances.json $.ops.mla_decode.lse.*.allow_nan"]["effect"],
            "loosened")
      << review["config_changes"].dump(2);
  EXPECT_EQ(changes["config/shapes.json $.sweeps[?(@.name==\"mla_decode\")].grid.h_q"]["effect"],
            "loosened")
      << review["config_changes"].dump(2);
  EXPECT_EQ(changes["attnverify.toml $.policy.required"]["effect"], "loosened");
  EXPECT_EQ(changes["attnverify.toml $.policy.waive[\"2.window\"]"]["effect"], "loosened")
      << review["config_changes"].dump(2);
  // One finding per changed file, at error severity, each change pointing at its finding.
  std::map<std::string, std::string> config_findings;  // id -> file
  for (const auto& f : review["findings"]) {
    if (f["rule"] != "package.config_changed") continue;
    EXPECT_EQ(f["severity"], "error") << f.dump(2);
    EXPECT_EQ(f["checklist_item"], 1);
    config_findings[f["id"].get<std::string>()] = f["file"].get<std::string>();
  }
  EXPECT_EQ(config_findings.size(), 3u) << review["findings"].dump(2);
  for (const auto& c : review["config_changes"]) {
    EXPECT_EQ(config_findings.count(c["finding"].get<std::string>()), 1u) << c.dump();
  }
  const auto md = ReadFileToString(pkg + "/reports/review_01.md");
  EXPECT_NE(md->find("$.ops.mla_decode.o.*.rtol"), std::string::npos) << *md;
}

}  // namespace
}  // namespace av
