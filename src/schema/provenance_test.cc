#include "schema/provenance.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/json_dump.h"
#include "core/json_reader.h"
#include "core/sha256.h"

namespace av {
namespace {

// Sets an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(Provenance, RunIdComesFromTheEnvironmentWhenRunSetsIt) {
  {
    ScopedEnv env(kRunIdEnv, "20261201T093000Z-3f9a1c");
    EXPECT_EQ(NewRunId(), "20261201T093000Z-3f9a1c");
  }
  {
    ScopedEnv env(kRunIdEnv, nullptr);
    const std::string id = NewRunId();
    EXPECT_TRUE(std::regex_match(id, std::regex("[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}"))) << id;
  }
  {
    // Not an id (a shell fragment, a newline): a fresh one instead.
    ScopedEnv env(kRunIdEnv, "x; rm -rf /\n");
    EXPECT_NE(NewRunId(), "x; rm -rf /\n");
  }
}

TEST(Provenance, RoundTrip) {
  Provenance p =
      StartProvenance("build", {"attnverify", "build", "--config", "a v/attnverify.toml"});
  p.config = "attnverify.toml";
  p.head_commit = "0123456789abcdef0123456789abcdef01234567";
  p.inputs = {{"logs/build.log", Sha256Hex("log")}, {"config/shapes.json", Sha256Hex("{}")}};
  p.finished = UtcNowRfc3339();
  const nlohmann::json doc = {{"provenance", ProvenanceToJson(p)}};
  Result<nlohmann::json> reread = ParseJson(JsonFileText(doc), "evidence/resources.json");
  ASSERT_TRUE(reread.ok()) << reread.status().message();
  Provenance back;
  bool present = false;
  ASSERT_TRUE(
      ParseProvenance(JsonReader("evidence/resources.json"), *reread, &back, &present).ok());
  EXPECT_TRUE(present);
  EXPECT_EQ(ProvenanceToJson(back), ProvenanceToJson(p));
  EXPECT_EQ(back.argv[3], "a v/attnverify.toml");
  EXPECT_TRUE(std::regex_match(p.started, std::regex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z")));
}

TEST(Provenance, MalformedBlockNamesTheJsonPath) {
  Provenance out;
  bool present = false;
  const JsonReader in("evidence/numerics.json");
  Status st = ParseProvenance(
      in, nlohmann::json::parse(R"({"provenance": {"run_id": "r", "argv": "attnverify build"}})"),
      &out, &present);
  EXPECT_EQ(st.message(),
            "evidence/numerics.json: $.provenance.argv: must be an array, got a string");
  Provenance fresh;  // a reader keeps what it read before: start from an empty block
  st = ParseProvenance(in, nlohmann::json::parse(R"({"provenance": {"argv": []}})"), &fresh,
                       &present);
  EXPECT_EQ(st.message(), "evidence/numerics.json: $.provenance.run_id: missing");
  EXPECT_TRUE(ParseProvenance(in, nlohmann::json::object(), &out, &present).ok());
  EXPECT_FALSE(present);
}

TEST(Provenance, PathsAreRelativeToThePackage) {
  namespace fs = std::filesystem;
  const std::string pkg = "/tmp/x/attention verify";
  EXPECT_EQ(PackageRelative(pkg, pkg + "/logs/build.log"), "logs/build.log");
  EXPECT_EQ(PackageRelative(pkg, pkg + "/./config/../config/shapes.json"), "config/shapes.json");
  EXPECT_EQ(PackageRelative(pkg, "/etc/passwd"), "/etc/passwd");
  EXPECT_EQ(PackageRelative(pkg, "/tmp/x/attention verify2/a"), "/tmp/x/attention verify2/a");
  EXPECT_EQ(ResolveInPackage(pkg, "logs/build.log"), pkg + "/logs/build.log");
  EXPECT_EQ(ResolveInPackage(pkg, "/abs/file"), "/abs/file");
  // A relative package folder is taken from the current folder, as the user typed it.
  const std::string rel = PackageRelative("attention-verify", "attention-verify/evidence/x.json");
  EXPECT_EQ(rel, "evidence/x.json");
}

}  // namespace
}  // namespace av
