#include "agent/agent_run.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "agent/agent_package.h"
#include "agent/agent_report.h"
#include "agent/prompts.h"
#include "agent/rounds.h"
#include "core/file.h"
#include "llm/provider_client.h"
#include "llm/redact.h"

namespace av {
namespace {

namespace fs = std::filesystem;

std::string Two(int n) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%02d", n);
  return buf;
}

std::string SafeName(const std::string& s) {
  std::string out;
  for (char c : s) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    out += ok ? c : '_';
  }
  return out.substr(0, 64);
}

std::string RequestFileName(int n, const AgentRequest& r) {
  std::string name = Two(n) + "-" + r.stage;
  if (!r.kernel.empty()) name += "-" + SafeName(r.kernel);
  if (r.part > 0) name += "." + std::to_string(r.part);
  return name + ".json";
}

// The kept findings so far, as the final round reads them.
std::string EarlierFindingsJson(const std::vector<AgentFindingRecord>& records) {
  nlohmann::json out = nlohmann::json::array();
  for (const AgentFindingRecord& r : records) {
    if (r.checked.drop != DropReason::kKept) continue;
    const AgentFinding& f = r.checked.finding;
    out.push_back({{"stage", r.stage},
                   {"kernel", r.kernel},
                   {"file", f.file},
                   {"line", f.line},
                   {"item", f.item},
                   {"severity", AgentSeverityName(f.severity)},
                   {"claim", f.claim},
                   {"evidence", f.evidence},
                   {"command", f.command}});
  }
  return out.dump(1);
}

class Runner {
 public:
  Runner(const AgentRunOptions& o, const AgentPackage& p, const ProviderConfig& provider,
         const PermissionSettings& policy, const RedactionContext& ctx, ProviderClient& client)
      : o_(o), p_(p), provider_(provider), policy_(policy), ctx_(ctx), client_(client) {}

  // One request and, when its answer does not parse, one retry. False when the provider
  // failed (the run stops).
  bool Run(const AgentRequest& request, AgentRunOutcome* out) {
    std::vector<ChatMessage> messages = {{"user", request.user}};
    for (int attempt = 1; attempt <= 2; ++attempt) {
      AgentRoundRecord rec;
      rec.n = ++n_;
      rec.stage = request.stage;
      rec.kernel = request.kernel;
      rec.part = request.part;
      rec.request_file = o_.reports_dir + "/agent_requests/" + RequestFileName(rec.n, request);
      rec.report_file = o_.reports_dir + "/agent_review_" + Two(rec.n) + ".md";
      rec.prompt_source = prompt_source_;
      CompletionRequest cr;
      cr.stage = request.stage;
      cr.kernel = request.kernel;
      cr.report_file = rec.report_file;
      cr.model = o_.model;
      cr.system = request.system;
      cr.messages = messages;
      cr.max_tokens = o_.max_tokens;
      if (Status s = WriteRedacted(rec.request_file, RequestJson(rec, cr)); !s.ok()) {
        rec.status = AgentRoundStatus::kFailed;
        rec.reason = s.message();
        out->stages.push_back(rec);
        return false;
      }
      Result<CompletionResult> answer = client_.Complete(cr);
      if (!answer.ok()) {
        rec.status = AgentRoundStatus::kFailed;
        rec.reason = RedactedText(answer.status().message(), ctx_);
        (void)WriteRedacted(rec.report_file, AnswerMarkdown(rec, "", nullptr, {}, {}));
        out->written.push_back(rec.report_file);
        out->stages.push_back(rec);
        out->failed = true;
        return false;
      }
      rec.model = answer->model;
      rec.request_id = answer->request_id;
      rec.input_tokens = answer->response.usage.input_tokens;
      rec.output_tokens = answer->response.usage.output_tokens;
      rec.cache_read_tokens = answer->response.usage.cache_read_tokens;
      const std::string& text = answer->response.text;
      Result<AgentAnswer> parsed = ParseAgentAnswer(text);
      if (!parsed.ok()) {
        rec.status = attempt == 1 ? AgentRoundStatus::kRetried : AgentRoundStatus::kFailed;
        rec.reason = "the answer is not the JSON asked for: " + parsed.status().message();
        (void)WriteRedacted(rec.report_file, AnswerMarkdown(rec, text, nullptr, {}, {}));
        out->written.push_back(rec.request_file);
        out->written.push_back(rec.report_file);
        out->stages.push_back(rec);
        if (attempt == 2) {
          out->failed = true;
          return true;
        }
        std::string error = parsed.status().message().substr(0, 300);
        std::string note = "Your answer could not be read: " + error +
                           ". Answer again with only the JSON object the system prompt "
                           "describes, nothing before or after it.";
        messages.push_back({"assistant", text});
        messages.push_back({"user", note});
        if (!Fits(request.system, messages)) {
          // The answer echoed back would pass the budget: the original request alone with
          // the note (the plan kept kRetryReserveTokens for it).
          messages = {{"user", request.user + "\n\n" + note}};
        }
        continue;
      }
      std::vector<AgentFindingRecord> findings;
      for (const AgentFinding& f : parsed->findings) {
        AgentFindingRecord fr;
        fr.checked = CheckFinding(f, request.context, p_, policy_);
        fr.stage = request.stage;
        fr.kernel = request.kernel;
        fr.model = rec.model;
        fr.request_id = rec.request_id;
        fr.report_file = rec.report_file;
        if (fr.checked.drop == DropReason::kKept) {
          ++rec.kept;
        } else {
          ++rec.dropped;
          ++out->dropped_by_reason[std::string(DropReasonName(fr.checked.drop))];
        }
        findings.push_back(std::move(fr));
      }
      std::vector<AgentCheckRecord> checks;
      for (const AgentCheck& c : parsed->checks) {
        checks.push_back({c, request.stage, rec.report_file});
      }
      rec.status = AgentRoundStatus::kOk;
      (void)WriteRedacted(rec.report_file, AnswerMarkdown(rec, text, &*parsed, findings, checks));
      out->written.push_back(rec.request_file);
      out->written.push_back(rec.report_file);
      out->findings.insert(out->findings.end(), findings.begin(), findings.end());
      out->checks.insert(out->checks.end(), checks.begin(), checks.end());
      out->stages.push_back(rec);
      return true;
    }
    return true;
  }

  void set_prompt_source(std::string s) { prompt_source_ = std::move(s); }

  bool Fits(const std::string& system, const std::vector<ChatMessage>& messages) const {
    CompletionRequest cr;
    cr.model = o_.model;
    cr.system = system;
    cr.messages = messages;
    cr.max_tokens = o_.max_tokens;
    Result<int64_t> n = client_.EstimateRequestTokens(cr);
    return n.ok() && *n <= provider_.max_input_tokens_per_request;
  }

 private:
  std::string RequestJson(const AgentRoundRecord& rec, const CompletionRequest& cr) const {
    nlohmann::json j;
    j["schema"] = "attnverify.agent_request/1";
    j["n"] = rec.n;
    j["stage"] = rec.stage;
    j["kernel"] = rec.kernel;
    j["part"] = rec.part;
    j["provider"] = provider_.name;
    j["model"] = o_.model;
    j["max_tokens"] = cr.max_tokens;
    j["prompt"] = rec.prompt_source;
    j["report_file"] = rec.report_file;
    j["system"] = cr.system;
    j["messages"] = nlohmann::json::array();
    for (const ChatMessage& m : cr.messages) {
      j["messages"].push_back({{"role", m.role}, {"content", m.content}});
    }
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }

  Status WriteRedacted(const std::string& rel, const std::string& text) const {
    const std::string path = p_.package_dir + "/" + rel;
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) return IoError(path + ": cannot create its folder: " + ec.message());
    return WriteFileAtomically(path, RedactedText(text, ctx_));
  }

  const AgentRunOptions& o_;
  const AgentPackage& p_;
  const ProviderConfig& provider_;
  const PermissionSettings& policy_;
  const RedactionContext& ctx_;
  ProviderClient& client_;
  std::string prompt_source_;
  int n_ = 0;
};

AgentRoundRecord Unsent(const std::string& stage, AgentRoundStatus status, std::string reason) {
  AgentRoundRecord r;
  r.stage = stage;
  r.status = status;
  r.reason = std::move(reason);
  return r;
}

// Old answers of an earlier run would read as this run's: remove them first.
void RemoveEarlierOutput(const std::string& dir) {
  std::error_code ec;
  fs::remove_all(dir + "/agent_requests", ec);
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("agent_review_", 0) == 0 && e.path().extension() == ".md") {
      fs::remove(e.path(), ec);
    }
  }
}

}  // namespace

Result<AgentRunOutcome> RunAgentReview(const AgentRunOptions& o) {
  if (o.transport == nullptr) return Internal("RunAgentReview: no transport");
  for (const std::string& s : o.stages) {
    if (!IsAgentStage(s)) {
      return InvalidInput("--stage " + s +
                          ": not a stage (diff_review, test_log, perf, cross_module, final, all)");
    }
  }
  // attnverify.toml, parsed once: its [slice] [components] [review] and its [provider].
  std::optional<PackageConfig> loaded;
  if (o.config == nullptr) {
    AV_ASSIGN_OR_RETURN(PackageConfig c, PackageConfig::Load(o.config_path));
    loaded.emplace(std::move(c));
  }
  const PackageConfig& config = o.config != nullptr ? *o.config : *loaded;
  AV_ASSIGN_OR_RETURN(AgentPackage package, LoadAgentPackage(config));
  AV_ASSIGN_OR_RETURN(ProviderConfig provider, ParseProviderConfig(config));
  AV_ASSIGN_OR_RETURN(std::string model, provider.ResolveModel(o.model));
  AgentRunOutcome out;
  out.provider = provider.name;
  out.model = model;
  AV_ASSIGN_OR_RETURN(PermissionSettings policy, AgentCommandPolicy(package, &out.policy_source));
  std::map<std::string, std::string> env = o.environment ? o.environment() : ProcessEnvironment();
  RedactionContext ctx = RedactionContext::FromEnvironment(env, provider.key_env);

  ProviderClientOptions copts;
  copts.transport = o.transport;
  copts.replay = o.replay;
  copts.environment = o.environment;
  copts.sleep = o.sleep;
  ProviderClient client(provider, copts);

  RemoveEarlierOutput(package.package_dir + "/" + o.reports_dir);
  Runner runner(o, package, provider, policy, ctx, client);
  const std::vector<std::string>& stages = o.stages.empty() ? AgentStages() : o.stages;
  bool stopped = false;
  for (const std::string& stage : AgentStages()) {
    if (std::find(stages.begin(), stages.end(), stage) == stages.end()) continue;
    if (stopped) {
      out.stages.push_back(Unsent(stage, AgentRoundStatus::kNotRun, "an earlier request failed"));
      continue;
    }
    RoundInputs in;
    in.package = &package;
    std::string source;
    AV_ASSIGN_OR_RETURN(in.system, LoadPrompt(package.package_dir, stage, &source));
    in.budget_tokens = provider.max_input_tokens_per_request;
    in.earlier_findings = EarlierFindingsJson(out.findings);
    in.request_tokens = [&](const std::string& system, const std::string& user) -> int64_t {
      CompletionRequest cr;
      cr.model = o.model;
      cr.system = system;
      cr.messages = {{"user", user}};
      cr.max_tokens = o.max_tokens;
      Result<int64_t> n = client.EstimateRequestTokens(cr);
      return n.ok() ? *n : EstimateTokens(system) + EstimateTokens(user) + kWireMarginTokens;
    };
    AgentStagePlan plan = PlanStage(stage, in);
    if (plan.requests.empty()) {
      out.stages.push_back(Unsent(stage, AgentRoundStatus::kSkipped, plan.skipped));
      continue;
    }
    runner.set_prompt_source(source);
    for (const AgentRequest& r : plan.requests) {
      if (!runner.Run(r, &out)) {
        stopped = true;
        break;
      }
    }
  }
  AV_RETURN_IF_ERROR(
      WriteAgentSummary(package.package_dir, o.reports_dir, o.summary_json, out, ctx));
  out.written.push_back(o.reports_dir + "/agent_review.md");
  out.written.push_back(o.summary_json);
  return out;
}

}  // namespace av
