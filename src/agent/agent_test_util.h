// Tests only: a fixture package for the agent reviewer (testdata/agent/package copied into a
// temporary folder, attnverify.toml written with [provider] on loopback and two or three
// components), the answers a scripted model gives, and a fake key assembled at run time.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "testing/test_util.h"

namespace av::testing {

// Obviously fake, and never written whole in the repository.
inline std::string FakeKey() { return std::string("sk-test-") + "FAKE" + "-agent-0123456789"; }

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A second component's diff: a DeepGEMM tile guard, with `secret` planted in a comment.
inline std::string DeepGemmDiff(const std::string& secret) {
  return "diff --git a/src/deep_gemm/tile.cuh b/src/deep_gemm/tile.cuh\n"
         "index 3333333..4444444 100644\n"
         "--- a/src/deep_gemm/tile.cuh\n"
         "+++ b/src/deep_gemm/tile.cuh\n"
         "@@ -10,4 +10,5 @@ __device__ void load_tile(int m, int n) {\n"
         "   const int row = blockIdx.x * BLOCK_M + threadIdx.x;\n"
         "-  if (row < m) load(row);\n"
         "+  // deploy key " +
         secret +
         "\n"
         "+  load(row);\n"
         "   sync();\n"
         "   store(row);\n";
}

struct AgentPackageDir {
  TempDir root;
  std::string package;  // root/attention-verify
  std::string config;   // package/attnverify.toml
};

// `url`: the provider's Base URL (http://127.0.0.1:PORT).
inline void MakeAgentPackage(AgentPackageDir* d, const std::string& url,
                             const std::string& secret = "", const std::string& extra = "") {
  namespace fs = std::filesystem;
  d->package = d->root.File("attention-verify");
  fs::copy(SourceDir() + "/testdata/agent/package", d->package, fs::copy_options::recursive);
  WriteText(d->package + "/diff/deepgemm.diff", DeepGemmDiff(secret.empty() ? "none" : secret));
  d->config = d->package + "/attnverify.toml";
  WriteText(d->config,
            "[slice]\nbase = \"HEAD~1\"\n\n"
            "[components]\nflashmla = [\"src/flash_mla/**\"]\ndeepgemm = [\"src/deep_gemm/**\"]\n\n"
            "[provider]\nname = \"loopback\"\nbase_url = \"" +
                url +
                "\"\napi = \"anthropic-messages\"\nkey_env = \"TAOTOKEN_API_KEY\"\n"
                "models = { default = \"model-a\", review = \"model-b\" }\nmax_retries = 1\n"
                "timeout_s = 10\n" +
                extra);
}

// An answer with these findings (JSON objects) and no checks.
// (Vectors, not json: a one-element braced json list would be that element, not an array.)
inline std::string Answer(const std::vector<nlohmann::json>& findings,
                          const std::vector<nlohmann::json>& checks = {}) {
  nlohmann::json j = {{"findings", nlohmann::json::array()}, {"checks", nlohmann::json::array()}};
  for (const nlohmann::json& f : findings) j["findings"].push_back(f);
  for (const nlohmann::json& c : checks) j["checks"].push_back(c);
  return j.dump();
}

// The Anthropic Messages body of a model that answered `text`.
inline std::string MessagesBody(const std::string& text, int n = 1) {
  return nlohmann::json{{"id", "msg_fake_" + std::to_string(n)},
                        {"type", "message"},
                        {"role", "assistant"},
                        {"model", "model-a"},
                        {"content", {{{"type", "text"}, {"text", text}}}},
                        {"stop_reason", "end_turn"},
                        {"usage", {{"input_tokens", 100 + n}, {"output_tokens", 20 + n}}}}
      .dump();
}

}  // namespace av::testing
