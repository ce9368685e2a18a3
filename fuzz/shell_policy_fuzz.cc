// libFuzzer target for the shell parser and the command policy: any bytes either parse
// or give an error (never a crash, never a hang, never a read outside the input), and the
// policy never allows what it could not parse. Two settings are tried: the workflow's
// least-privilege rules and a bare "Bash" allow rule (which allows every command the policy
// understands, so an allow there is only as good as the parse). Seeds: fuzz/corpus/shell_policy/.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "policy/command_policy.h"
#include "shell/shell_parse.h"

namespace {

av::PermissionRule Rule(const char* text) { return *av::ParsePermissionRule(text); }

const av::PermissionSettings& Workflow() {
  static const av::PermissionSettings s = [] {
    av::PermissionSettings p;
    for (const char* r :
         {"Bash(git diff:*)", "Bash(git status:*)", "Bash(nvcc:*)", "Bash(python -m pytest:*)",
          "Bash(pytest:*)", "Bash(ncu:*)", "Bash(echo *)", "Bash(cat:*)"}) {
      p.allow.push_back(Rule(r));
    }
    for (const char* r : {"Bash(git push:*)", "Bash(rm:*)", "Bash(curl:*)"})
      p.deny.push_back(Rule(r));
    p.package_dir = "/nonexistent-attnverify-fuzz/pkg";
    p.cwd = "/nonexistent-attnverify-fuzz";
    return p;
  }();
  return s;
}

const av::PermissionSettings& AllowAll() {
  static const av::PermissionSettings s = [] {
    av::PermissionSettings p;
    p.allow.push_back(Rule("Bash"));
    return p;
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  av::Result<av::ShellScript> script = av::ParseShell(text);
  bool understood = script.ok() && script->undecided.empty();
  for (const av::PermissionSettings* s : {&Workflow(), &AllowAll()}) {
    av::Decision d = av::DecideCommand(*s, text);
    if (d.decision != av::Verdict::kAllow) continue;
    if (!understood || d.subcommands.empty()) __builtin_trap();
    for (const av::SubcommandDecision& sub : d.subcommands) {
      if (sub.decision != av::Verdict::kAllow) __builtin_trap();
    }
  }
  return 0;
}
