// The schema of attnverify.toml (core/package_schema.h) against every attnverify.toml the
// repository holds and the one `attnverify init` writes: all load; a misspelled table or
// key is an error naming FILE:LINE (newcomer turn 3 and house.md: `[polcy]` was read as
// nothing and the defaults applied, silently).
#include "core/package_schema.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/file.h"
#include "core/toml_config.h"
#include "pipeline/package_init.h"
#include "testing/test_util.h"

namespace av {
namespace {

Status Check(const std::string& text) {
  return ParsePackageConfig(text, "attnverify.toml").status();
}

TEST(PackageSchema, MisspelledTableIsAnErrorNamingTheLineAndTheTable) {
  Status s = Check("[build]\nblock_size = 128\n\n[polcy]\nrequired = [1, 2]\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "attnverify.toml:4: unknown table [polcy] (did you mean [policy]?)");
  Status far = Check("[totally_else]\nx = 1\n");
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.message().find("attnverify.toml:1: unknown table [totally_else] (known tables: "
                               "[slice], [components]"),
            std::string::npos)
      << far.message();
  Status dotted = Check("[reveiw.x]\ny = 1\n");
  ASSERT_FALSE(dotted.ok());
  EXPECT_NE(dotted.message().find("unknown table [reveiw] (did you mean [review]?)"),
            std::string::npos)
      << dotted.message();
}

TEST(PackageSchema, MisspelledKeyAndStrayTopLevelKeyAreErrors) {
  Status key = Check("[build]\nsourcs = [\"k.cu\"]\n");
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.message().rfind("attnverify.toml:2:1: unknown key \"sourcs\" in [build] (allowed: "
                                "archs, base_setup, block_size,",
                                0),
            0u)
      << key.message();
  Status stray = Check("required = [1]\n[policy]\n");
  ASSERT_FALSE(stray.ok());
  EXPECT_EQ(stray.message().rfind("attnverify.toml:1: unknown key \"required\" outside any table (known tables: ",
                                  0),
            0u)
      << stray.message();
  // Sub-tables and free names are their modules' to check.
  EXPECT_TRUE(Check("[components]\nmy_kernel = [\"src/**\"]\n[build.gates]\nmax_registers = 9\n"
                    "[[build.kernel]]\nname = \"k\"\n")
                  .ok());
}

TEST(PackageSchema, EveryConfigOfTheRepositoryAndInitsTemplateLoads) {
  const std::string root = av::testing::SourceDir();
  for (const char* rel : {"examples/splitk_decode/repo/attention-verify/attnverify.toml",
                          "testdata/policy/howto/attention-verify/attnverify.toml",
                          "testdata/report/package/attnverify.toml"}) {
    auto text = ReadFileToString(root + "/" + rel);
    ASSERT_TRUE(text.ok()) << rel;
    Status s = ParsePackageConfig(*text, rel).status();
    EXPECT_TRUE(s.ok()) << s.message();
  }
  Status init = Check(DefaultAttnverifyToml());
  EXPECT_TRUE(init.ok()) << init.message();
  // init's commented-out tables ([build], [candidate], ...) load too once uncommented.
  std::string uncommented;
  for (size_t pos = 0; pos < DefaultAttnverifyToml().size();) {
    std::string t = DefaultAttnverifyToml();
    size_t nl = t.find('\n', pos);
    std::string line = t.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? t.size() : nl + 1;
    if (line.rfind("# [", 0) == 0) line = line.substr(2);
    uncommented += line + "\n";
  }
  auto doc = ParseTomlConfig(uncommented, "init.toml");
  if (doc.ok()) {
    Status s = CheckPackageConfig(*doc, "init.toml");
    EXPECT_TRUE(s.ok()) << s.message();
  }
}

// The list is {table, owning module}: each module named is a module of src/, and one of its
// non-test sources reads the table by name (its parser).
TEST(PackageSchema, EachTableIsReadByTheModuleThatOwnsIt) {
  namespace fs = std::filesystem;
  const fs::path src = fs::path(av::testing::SourceDir()) / "src";
  for (const PackageTable& t : PackageTables()) {
    const fs::path dir = src / std::string(t.module);
    ASSERT_TRUE(fs::is_directory(dir)) << "[" << t.name << "]: no module src/" << t.module;
    const std::string quoted = "\"" + std::string(t.name) + "\"";
    bool reads = false;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string file = e.path().filename().string();
      if (e.path().extension() != ".cc" || file.find("_test.cc") != std::string::npos) continue;
      Result<std::string> text = ReadFileToString(e.path().string());
      reads |= text.ok() && text->find(quoted) != std::string::npos;
    }
    EXPECT_TRUE(reads) << "[" << t.name << "]: no source of src/" << t.module << " names "
                       << quoted;
  }
}

}  // namespace
}  // namespace av
