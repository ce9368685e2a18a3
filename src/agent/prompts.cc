#include "agent/prompts.h"

#include <filesystem>

#include "agent/agent_package.h"
#include "agent/default_prompts.h"
#include "agent/rounds.h"
#include "core/file.h"

namespace av {

std::string DefaultPrompt(const std::string& stage) {
  if (stage == "diff_review") return kPromptDiffReview;
  if (stage == "test_log") return kPromptTestLog;
  if (stage == "perf") return kPromptPerf;
  if (stage == "cross_module") return kPromptCrossModule;
  if (stage == "final") return kPromptFinal;
  return "";
}

Result<std::string> LoadPrompt(const std::string& package_dir, const std::string& stage,
                               std::string* source) {
  const std::string rel = "config/prompts/" + stage + ".md";
  Result<std::string> text = ReadPackageFile(package_dir, rel);
  if (text.ok()) {
    if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
      return InvalidInput(package_dir + "/" + rel +
                          ": empty prompt (delete it to use the built-in one)");
    }
    *source = rel;
    return std::move(*text);
  }
  if (text.status().code() != StatusCode::kNotFound) return text.status();
  *source = "built-in";
  return DefaultPrompt(stage);
}

Result<PromptsWritten> WriteDefaultPrompts(const std::string& package_dir, bool force) {
  namespace fs = std::filesystem;
  PromptsWritten out;
  const std::string dir = package_dir + "/config/prompts";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IoError(dir + ": cannot create folder: " + ec.message());
  for (const std::string& stage : AgentStages()) {
    const std::string path = dir + "/" + stage + ".md";
    if (!force && fs::exists(fs::symlink_status(path, ec))) {
      out.kept.push_back(path);
      continue;
    }
    AV_RETURN_IF_ERROR(WriteFileAtomically(path, DefaultPrompt(stage)));
    out.written.push_back(path);
  }
  return out;
}

}  // namespace av
