#include "agent/run_commands_binding.h"

#include <filesystem>

#include "agent/agent_package.h"
#include "core/git.h"
#include "core/sha256.h"
#include "schema/run_json.h"
#include "schema/run_seal.h"

namespace av {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAgainHint = "; its commands do not run: run `attnverify agent` again";

Status Unbound(const std::string& package_dir, const std::string& why) {
  return InvalidInput(package_dir + "/" + kAgentReviewPath +
                      " is not the one an `attnverify agent` run wrote: " + why + kAgainHint);
}

std::string Canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? fs::absolute(path).lexically_normal().string() : p.string();
}

}  // namespace

Status CheckAgentReviewBound(const std::string& package_dir, std::string_view review_text,
                             std::string* bound) {
  Result<std::string> run_text = ReadPackageFile(package_dir, "evidence/run.json");
  if (!run_text.ok()) {
    return Unbound(package_dir, run_text.status().code() == StatusCode::kNotFound
                                    ? "there is no evidence/run.json recording an agent run"
                                    : run_text.status().message());
  }
  Result<RunLedger> ledger = ParseRunLedger(*run_text, package_dir + "/evidence/run.json");
  if (!ledger.ok()) return Unbound(package_dir, ledger.status().message());
  // Only attnverify, with this user's key, can write a ledger that verifies: without the
  // seal a hand-written run.json could "record" any agent_review.json.
  RunTrust trust = CheckRunSeal(*ledger, ReadSealKey(SealKeyPath()), package_dir);
  if (trust.seal != SealState::kValid) return Unbound(package_dir, trust.note);
  const StageEntry* agent = ledger->Stage("agent");
  if (agent == nullptr) return Unbound(package_dir, "evidence/run.json records no agent run");
  if (agent->finished.empty()) {
    return Unbound(package_dir, "the agent run " + agent->run_id +
                                    " recorded in evidence/run.json did not finish");
  }
  const OutputDigest* out = agent->Output(kAgentReviewPath);
  if (out == nullptr) {
    return Unbound(package_dir, "the agent run " + agent->run_id +
                                    " recorded in evidence/run.json did not write it");
  }
  const std::string now = Sha256Hex(review_text);
  if (out->sha256 != now) {
    return Unbound(package_dir, "it was changed after the agent run " + agent->run_id +
                                    " wrote it (sha256 " + now.substr(0, 12) + " now, " +
                                    out->sha256.substr(0, 12) + " recorded in evidence/run.json)");
  }
  *bound = "the agent run " + agent->run_id + " (sha256 " + now.substr(0, 12) +
           " as recorded in evidence/run.json)";
  return Status::Ok();
}

Status CheckAgentReviewNotCommitted(ProcessRunner& git, const std::string& repo_dir,
                                    const std::string& package_dir) {
  Result<std::string> top = RunSafeGit(git, repo_dir, {"rev-parse", "--show-toplevel"});
  if (!top.ok()) return Status::Ok();
  const std::string root = Canonical(TrimNewlines(*top));
  const fs::path rel = fs::path(Canonical(package_dir)).lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return Status::Ok();
  std::vector<std::string> args = {"ls-files", "-z", "--cached", "--"};
  for (const char* f : {kAgentReviewPath, "evidence/run.json"}) {
    args.push_back(":(literal)" + (rel / f).lexically_normal().generic_string());
  }
  Result<std::string> tracked = RunSafeGit(git, root, args);
  if (!tracked.ok()) return tracked.status();
  if (tracked->empty()) return Status::Ok();
  std::string first = tracked->substr(0, tracked->find('\0'));
  return InvalidInput(root + "/" + first +
                      " is committed in the repository under review: the agent review must be "
                      "one an `attnverify agent` run wrote here, not the change's own" +
                      kAgainHint + " after `git rm --cached` of the package's evidence");
}

}  // namespace av
