// The command policy's regression suite: each row pins one way a deny rule was walked
// around, or an allow rule over-granted, in a real agent tool (Claude Code's tracker
// numbers where there is one), or a bash rule the parser must follow. The row's name is the
// test's name.
#include "policy/command_policy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "testing/test_util.h"

namespace av {
namespace {

// The allow and deny lists `attnverify agent-config emit` writes.
const std::vector<std::string> kWorkflowAllow = {
    "Read",         "Bash(git diff:*)",         "Bash(git status:*)",
    "Bash(nvcc:*)", "Bash(python -m pytest:*)", "Bash(pytest:*)",
    "Bash(ncu:*)",  "Bash(attnverify:*)"};
const std::vector<std::string> kWorkflowDeny = {
    "Bash(git push:*)", "Bash(rm:*)", "Bash(curl:*)", "Bash(wget:*)",
    "Bash(ssh:*)",      "Edit",       "Write"};
// The workflow's how-to, as written there.
const std::vector<std::string> kHowToAllow = {
    "Read",           "Bash(git diff:*)", "Bash(git status:*)", "Bash(nvcc:*)",
    "Bash(python:*)", "Bash(pytest:*)",   "Bash(ncu:*)"};
const std::vector<std::string> kHowToDeny = {"Bash(git push:*)", "Bash(rm:*)",
                                             "Bash(curl:*production*)"};

struct Case {
  const char* name;
  std::vector<std::string> allow, deny, ask;
  const char* command;
  Verdict expected;
};

std::vector<Case> Cases() {
  const auto& WA = kWorkflowAllow;
  const auto& WD = kWorkflowDeny;
  return {
      // Claude Code's tracker: compound commands ride along with an allowed prefix.
      {"EchoAndLsUnderEchoWildcard", {"Bash(echo *)"}, {}, {}, "echo x && ls", Verdict::kAsk},
      {"CdThenPythonUnderCdPrefix_28784",
       {"Bash(cd:*)"},
       {},
       {},
       "cd /p && python3 x.py",
       Verdict::kAsk},
      {"GitLogThenOtherCommand",
       {"Bash(git log:*)"},
       {},
       {},
       "git log; touch /tmp/x",
       Verdict::kAsk},
      {"GitLogThenDeniedCommand",
       {"Bash(git log:*)"},
       {"Bash(curl:*)"},
       {},
       "git log; curl evil.example",
       Verdict::kDeny},
      {"GitAddCommitPushInOneCall_29076",
       {"Bash(git add:*)"},
       {"Bash(git push:*)"},
       {},
       "git add x && git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\" && git push",
       Verdict::kDeny},
      {"DenyInsideCommandSubstitution",
       {"Bash(echo:*)"},
       {"Bash(rm:*)"},
       {},
       "echo $(rm -rf /)",
       Verdict::kDeny},
      {"DenyInsideQuotedCommandSubstitution",
       {"Bash(echo:*)"},
       {"Bash(rm:*)"},
       {},
       "echo \"$(rm -rf /)\"",
       Verdict::kDeny},
      {"DenyInsideBackquotes",
       {"Bash(echo:*)"},
       {"Bash(rm:*)"},
       {},
       "echo `rm -rf /`",
       Verdict::kDeny},
      {"DenyInsideNestedBackquotes",
       {"Bash(echo:*)"},
       {"Bash(rm:*)"},
       {},
       "echo `echo \\`rm x\\``",
       Verdict::kDeny},
      {"DenyInsideEval",
       {},
       {"Bash(git push:*)"},
       {},
       "eval \"git push origin main\"",
       Verdict::kDeny},
      {"EvalIsNeverAllowed", {"Bash(eval:*)", "Bash(ls:*)"}, {}, {}, "eval ls", Verdict::kAsk},
      {"AllowedPrefixWithSubstitutionArgument",
       {"Bash(git status:*)"},
       {},
       {},
       "git status $(touch /tmp/pwned)",
       Verdict::kAsk},
      {"DenyInsideProcessSubstitution",
       {"Bash(cat:*)"},
       {"Bash(rm:*)"},
       {},
       "cat <(rm -rf x)",
       Verdict::kDeny},
      {"DenyInsideOutputProcessSubstitution",
       {"Bash(git status:*)"},
       {"Bash(rm:*)"},
       {},
       "git status > >(rm x)",
       Verdict::kDeny},
      {"DenyInsideUnquotedHeredoc",
       {"Bash(cat:*)"},
       {"Bash(rm:*)"},
       {},
       "cat <<EOF\n$(rm -rf /)\nEOF",
       Verdict::kDeny},
      {"QuotedHeredocIsLiteral",
       {"Bash(cat:*)"},
       {"Bash(rm:*)"},
       {},
       "cat <<'EOF'\n$(rm -rf /)\nEOF",
       Verdict::kAllow},
      {"DenyInsideHereString",
       {"Bash(cat:*)"},
       {"Bash(rm:*)"},
       {},
       "cat <<< \"$(rm x)\"",
       Verdict::kDeny},
      {"DenyInsideParameterDefault",
       {"Bash(echo:*)"},
       {"Bash(rm:*)"},
       {},
       "echo ${x:-$(rm x)}",
       Verdict::kDeny},
      {"DenyInsideArithmetic",
       {"Bash(echo:*)"},
       {"Bash(rm:*)"},
       {},
       "echo $(( $(rm x) + 1 ))",
       Verdict::kDeny},
      // Quote removal, escapes and continuations before names are compared.
      {"QuotedWordsSpellDeniedCommand",
       {},
       {"Bash(git push:*)"},
       {},
       "\"git\" \"push\"",
       Verdict::kDeny},
      {"SplitQuotesSpellDeniedCommand",
       {},
       {"Bash(git push:*)"},
       {},
       "g'i't pu\"sh\" origin",
       Verdict::kDeny},
      {"BackslashBeforeName", {}, {"Bash(rm:*)"}, {}, "\\rm -rf x", Verdict::kDeny},
      {"BackslashInsideName", {}, {"Bash(rm:*)"}, {}, "r\\m -rf x", Verdict::kDeny},
      {"AnsiCQuotedName", {}, {"Bash(rm:*)"}, {}, "$'\\x72\\x6d' -rf x", Verdict::kDeny},
      {"LineContinuationInsideName", {}, {"Bash(rm:*)"}, {}, "r\\\nm -rf x", Verdict::kDeny},
      {"PathQualifiedName", {}, {"Bash(rm:*)"}, {}, "/bin/rm -rf x", Verdict::kDeny},
      {"RelativePathName", {}, {"Bash(rm:*)"}, {}, "../../bin/rm x", Verdict::kDeny},
      {"PathQualifiedNameIsNotAllowedByBareRule",
       {"Bash(git status:*)"},
       {},
       {},
       "./git status",
       Verdict::kAsk},
      // Every operator separates commands.
      {"NewlineSeparates", WA, WD, {}, "git status\nrm -rf x", Verdict::kDeny},
      {"SemicolonSeparates", WA, WD, {}, "git status;rm x", Verdict::kDeny},
      {"AndSeparates", WA, WD, {}, "git status&&rm x", Verdict::kDeny},
      {"OrSeparates", WA, WD, {}, "false || rm x", Verdict::kDeny},
      {"PipeSeparates", WA, WD, {}, "git status | rm x", Verdict::kDeny},
      {"PipeStderrSeparates", WA, WD, {}, "git status |& rm x", Verdict::kDeny},
      {"BackgroundSeparates", WA, WD, {}, "git status & rm x", Verdict::kDeny},
      {"OperatorSplitByContinuation", WA, WD, {}, "git status &\\\n& rm x", Verdict::kDeny},
      {"CarriageReturnIsAsked", WA, WD, {}, "git status\rrm x", Verdict::kAsk},
      {"EscapeSequenceIsAsked", WA, WD, {}, "git status \x1b[2K", Verdict::kAsk},
      {"SubshellIsChecked", WA, WD, {}, "(rm x)", Verdict::kDeny},
      {"GroupIsChecked", WA, WD, {}, "{ rm x; }", Verdict::kDeny},
      {"NegationIsChecked", WA, WD, {}, "! rm x", Verdict::kDeny},
      {"TimeKeywordIsChecked", WA, WD, {}, "time rm x", Verdict::kDeny},
      {"IfBodyIsChecked", WA, WD, {}, "if git status; then rm x; fi", Verdict::kDeny},
      {"WhileBodyIsChecked", WA, WD, {}, "while git status; do git push; done", Verdict::kDeny},
      {"ForBodyIsChecked", WA, WD, {}, "for f in a b; do rm $f; done", Verdict::kDeny},
      {"CommentHidesNothing", WA, WD, {}, "git status # && rm -rf /", Verdict::kAllow},
      {"CommentEndsAtNewline", WA, WD, {}, "git status # x\nrm x", Verdict::kDeny},
      {"QuotedOperatorIsAnArgument",
       {"Bash(echo:*)"},
       {"Bash(rm:*)"},
       {},
       "echo \"x && rm -rf /\"",
       Verdict::kAllow},
      // Expansions the policy cannot know before the command runs.
      {"VariableInCommandPosition", WA, WD, {}, "$CMD status", Verdict::kAsk},
      {"BracedVariableInCommandPosition", WA, WD, {}, "${CMD} status", Verdict::kAsk},
      {"SubstitutionInCommandPosition", WA, WD, {}, "$(echo git) status", Verdict::kAsk},
      {"VariableAfterAllowedPrefixWord", WA, WD, {}, "git $SUB", Verdict::kAsk},
      {"GlobInCommandName", WA, WD, {}, "/bin/r? x", Verdict::kAsk},
      {"GlobSpellsDeniedSubcommand", WA, WD, {}, "git pu?h", Verdict::kAsk},
      {"BraceExpansionSpellsCommand", WA, WD, {}, "{rm,-rf,x}", Verdict::kAsk},
      {"TildeCommand", WA, WD, {}, "~/bin/tool", Verdict::kAsk},
      {"UrlInVariableWalksAroundContentDeny",
       kHowToAllow,
       kHowToDeny,
       {},
       "URL=https://production.example/api; curl $URL",
       Verdict::kAsk},
      {"CurlToProdHostWalksAroundContentDeny",
       kHowToAllow,
       kHowToDeny,
       {},
       "curl -H 'Accept: x' https://prod.example/api",
       Verdict::kAsk},
      {"CurlDeniedByCommandRule",
       WA,
       WD,
       {},
       "URL=https://production.example/api; curl $URL",
       Verdict::kDeny},
      {"ArithmeticWithNames", {"Bash(echo:*)"}, {}, {}, "echo $((x + 1))", Verdict::kAsk},
      {"ArithmeticWithNumbers", {"Bash(echo:*)"}, {}, {}, "echo $((1 + 2))", Verdict::kAllow},
      {"PromptExpansionOfValue", {"Bash(echo:*)"}, {}, {}, "echo ${x@P}", Verdict::kAsk},
      {"ArraySubscriptAssignment", {"Bash(echo:*)"}, {}, {}, "a[$(id)]=1; echo", Verdict::kAsk},
      {"ConditionalArithmeticOperand",
       {"Bash(echo:*)"},
       {},
       {},
       "[[ $x -eq 1 ]] && echo y",
       Verdict::kAsk},
      {"PlainTestIsAllowed", {"Bash(echo:*)"}, {}, {}, "[ -f x ] && echo y", Verdict::kAllow},
      // Assignments and environment.
      {"EnvAssignmentBeforeDeniedCommand", WA, WD, {}, "FOO=bar git push", Verdict::kDeny},
      {"EnvAssignmentChangesAllowedCommand",
       WA,
       WD,
       {},
       "GIT_EXTERNAL_DIFF=/tmp/x git diff",
       Verdict::kAsk},
      {"PreloadBeforeAllowedCommand", WA, WD, {}, "LD_PRELOAD=/tmp/x.so pytest -q", Verdict::kAsk},
      {"PathAssignmentThenAllowedCommand",
       WA,
       WD,
       {},
       "PATH=/tmp/evil:$PATH; git status",
       Verdict::kAsk},
      {"ExportedPathThenAllowedCommand",
       WA,
       WD,
       {},
       "export PATH=/tmp/evil; git status",
       Verdict::kAsk},
      {"ForLoopAssignsPath", WA, WD, {}, "for PATH in /tmp; do git status; done", Verdict::kAsk},
      {"SafeEnvBeforeAllowedCommand",
       WA,
       WD,
       {},
       "CUDA_VISIBLE_DEVICES=0 python -m pytest -q",
       Verdict::kAllow},
      // Exec wrappers: the wrapped command is what is checked.
      {"TimeoutWrapsDenied", WA, WD, {}, "timeout 5 rm -rf x", Verdict::kDeny},
      {"NiceWrapsDenied", WA, WD, {}, "nice -n 5 git push", Verdict::kDeny},
      {"NiceNumericWrapsDenied", WA, WD, {}, "nice -10 git push", Verdict::kDeny},
      {"NohupWrapsDenied", WA, WD, {}, "nohup rm x &", Verdict::kDeny},
      {"EnvWrapsDenied", WA, WD, {}, "env -i FOO=1 rm x", Verdict::kDeny},
      {"PathQualifiedEnvWrapsDenied_92542", WA, WD, {}, "/usr/bin/env rm x", Verdict::kDeny},
      {"SudoWrapsDenied", WA, WD, {}, "sudo -u root rm x", Verdict::kDeny},
      {"SudoNeedsItsOwnRule", WA, WD, {}, "sudo git status", Verdict::kAsk},
      {"XargsWrapsDenied", WA, WD, {}, "ls | xargs rm", Verdict::kDeny},
      {"XargsWithOptionsWrapsDenied", WA, WD, {}, "ls | xargs -0 -n 1 -I{} rm {}", Verdict::kDeny},
      {"FindExecWrapsDenied",
       {"Bash(find:*)"},
       WD,
       {},
       "find . -name '*.o' -exec rm {} \\;",
       Verdict::kDeny},
      {"FindDeleteIsAsked", {"Bash(find:*)"}, WD, {}, "find . -name '*.o' -delete", Verdict::kAsk},
      {"WatchRunsScript", WA, WD, {}, "watch -n 1 'git status; rm x'", Verdict::kDeny},
      {"NcuWrapsDenied", WA, WD, {}, "ncu --set full --launch-count 3 rm x", Verdict::kDeny},
      {"NcuWrappedCommandNeedsItsOwnRule",
       WA,
       WD,
       {},
       "ncu --set full --kernel-name regex:flash_mla --launch-count 3 python bench_flash_mla.py",
       Verdict::kAsk},
      {"NcuWrappingAllowedCommand",
       WA,
       WD,
       {},
       "ncu --set full -k regex:mla -c 3 python -m pytest -q",
       Verdict::kAllow},
      {"NsysWrapsDenied", WA, WD, {}, "nsys profile -o out --stats=true rm x", Verdict::kDeny},
      {"SanitizerWrapsDenied",
       WA,
       WD,
       {},
       "compute-sanitizer --tool memcheck rm x",
       Verdict::kDeny},
      {"CommandBuiltinWrapsDenied", WA, WD, {}, "command rm x", Verdict::kDeny},
      {"ExecWrapsDenied", WA, WD, {}, "exec rm x", Verdict::kDeny},
      {"NestedWrappersWrapDenied", WA, WD, {}, "nice timeout 5 env A=1 nohup rm x", Verdict::kDeny},
      {"UnknownWrapperOptionStillFindsDeny",
       WA,
       WD,
       {},
       "timeout --no-such-option 5 rm x",
       Verdict::kDeny},
      {"UnknownWrapperOptionIsAsked",
       WA,
       WD,
       {},
       "timeout --no-such-option 5 git status",
       Verdict::kAsk},
      {"TransparentWrapperOfAllowed",
       WA,
       WD,
       {},
       "timeout 600 nice -n 10 python -m pytest -q",
       Verdict::kAllow},
      {"RepositoryWrapperIsNotTransparent", WA, WD, {}, "./timeout 5 git status", Verdict::kAsk},
      // sh -c and bash -c scripts are parsed.
      {"ShDashCDenied", WA, WD, {}, "sh -c 'git push'", Verdict::kDeny},
      {"BashDashCCompound", WA, WD, {}, "bash -c \"git status; rm -rf /\"", Verdict::kDeny},
      {"BashDashLcAllowed", WA, WD, {}, "bash -lc 'git status && git diff'", Verdict::kAllow},
      {"ShDashCNested", WA, WD, {}, "sh -c \"bash -c 'sh -c \\\"rm x\\\"'\"", Verdict::kDeny},
      {"ShDashCVariableScript", WA, WD, {}, "sh -c \"$SCRIPT\"", Verdict::kAsk},
      {"BashShoptOptionIsAsked", WA, WD, {}, "bash -O extglob -c 'git status'", Verdict::kAsk},
      {"ShReadingStdin", WA, WD, {}, "git diff | sh", Verdict::kAsk},
      {"SourceIsAsked", WA, WD, {}, "source ./env.sh", Verdict::kAsk},
      {"DotIsAsked", WA, WD, {}, ". ./env.sh && git status", Verdict::kAsk},
      {"FunctionDefinitionIsAsked", WA, WD, {}, "f() { git status; }; f", Verdict::kAsk},
      {"FunctionBodyDenyIsFound", WA, WD, {}, "f() { rm x; }", Verdict::kDeny},
      {"AliasIsAsked", WA, WD, {}, "alias git=rm; git status", Verdict::kAsk},
      // Redirections and tee.
      {"RedirectOutsidePackage", {"Bash(echo:*)"}, {}, {}, "echo x > /etc/passwd", Verdict::kAsk},
      {"AppendToAuthorizedKeys",
       {"Bash(echo:*)"},
       {},
       {},
       "echo key >> ~/.ssh/authorized_keys",
       Verdict::kAsk},
      {"RedirectToDevNull", {"Bash(echo:*)"}, {}, {}, "echo x > /dev/null 2>&1", Verdict::kAllow},
      {"RedirectInsidePackage",
       {"Bash(echo:*)"},
       {},
       {},
       "echo x > attention-verify/logs/x.log",
       Verdict::kAllow},
      {"RedirectEscapesPackageWithDotDot",
       {"Bash(echo:*)"},
       {},
       {},
       "echo x > attention-verify/../x",
       Verdict::kAsk},
      {"RedirectThroughSymlinkInPackage",
       {"Bash(echo:*)"},
       {},
       {},
       "echo x > attention-verify/link/x",
       Verdict::kAsk},
      {"RedirectToVariable", {"Bash(echo:*)"}, {}, {}, "echo x > $F", Verdict::kAsk},
      {"RedirectAfterCd",
       {"Bash(echo:*)", "Bash(cd:*)"},
       {},
       {},
       "cd /etc && echo x > attention-verify/x",
       Verdict::kAsk},
      {"StderrToFileOutside", WA, WD, {}, "git status 2>/tmp/x", Verdict::kAsk},
      {"RedirectOnlyCommand", WA, WD, {}, "> /etc/motd", Verdict::kAsk},
      {"ExecRedirection", WA, WD, {}, "exec > /tmp/log", Verdict::kAsk},
      {"GroupRedirection", WA, WD, {}, "{ git status; } > /tmp/x", Verdict::kAsk},
      {"TeeOutsidePackage",
       {"Bash(echo:*)", "Bash(tee:*)"},
       {},
       {},
       "echo x | tee -a /etc/x",
       Verdict::kAsk},
      {"TeeInsidePackage",
       {"Bash(echo:*)", "Bash(tee:*)"},
       {},
       {},
       "echo x | tee attention-verify/x.log",
       Verdict::kAllow},
      // git.
      {"GitGlobalOptionBeforeDenied", WA, WD, {}, "git -C /tmp/repo push", Verdict::kDeny},
      {"GitNoPagerBeforeDenied", WA, WD, {}, "git --no-pager push", Verdict::kDeny},
      {"GitConfigOptionRunsProgram",
       WA,
       WD,
       {},
       "git -c core.pager='sh -c id' diff",
       Verdict::kAsk},
      {"GitNoPagerAllowed", WA, WD, {}, "git --no-pager diff HEAD~1", Verdict::kAllow},
      {"CdThenGitBareRepository",
       {"Bash(cd:*)", "Bash(git status:*)"},
       {},
       {},
       "cd /tmp/x && git status",
       Verdict::kAsk},
      // Rule syntax.
      {"LegacyPrefixWordBoundary", WA, WD, {}, "git diff-tree HEAD", Verdict::kAsk},
      {"LegacyPrefixAlone", WA, WD, {}, "git diff", Verdict::kAllow},
      {"WildcardWordBoundary", {"Bash(ls *)"}, {}, {}, "lsof", Verdict::kAsk},
      {"WildcardBareCommand", {"Bash(ls *)"}, {}, {}, "ls", Verdict::kAllow},
      {"WildcardWithArguments", {"Bash(ls *)"}, {}, {}, "ls -la ~/x", Verdict::kAllow},
      {"WildcardMiddle", {"Bash(npm * --save)"}, {}, {}, "npm install x --save", Verdict::kAllow},
      {"ExactRuleOnly", {"Bash(npm run build)"}, {}, {}, "npm run build --watch", Verdict::kAsk},
      {"ExactRule", {"Bash(npm run build)"}, {}, {}, "npm   run build", Verdict::kAllow},
      {"QuotedSpaceIsNotAWordBoundary",
       {"Bash(npm run test:*)"},
       {},
       {},
       "npm \"run test\"",
       Verdict::kAsk},
      {"BareToolDeniesEverything", WA, {"Bash"}, {}, "git status", Verdict::kDeny},
      {"AskRuleBeatsAllow", WA, WD, {"Bash(git diff:*)"}, "git diff", Verdict::kAsk},
      {"DenyBeatsAllow", {"Bash(git:*)"}, {"Bash(git push:*)"}, {}, "git push", Verdict::kDeny},
      {"PythonPytestNotPythonC",
       WA,
       WD,
       {},
       "python -c 'import os; os.system(\"id\")'",
       Verdict::kAsk},
      {"HowToPythonAllowsArbitraryCode",
       kHowToAllow,
       kHowToDeny,
       {},
       "python -c 'import os'",
       Verdict::kAllow},
      {"SubscriptInSingleQuotesRuns",
       {"Bash(printf:*)"},
       {},
       {},
       "printf -v 'a[$(id)]' x",
       Verdict::kAsk},
      {"NvccHostCompilerOption", WA, WD, {}, "nvcc -ccbin /tmp/evil -c k.cu", Verdict::kAsk},
      {"NvccRunOption", WA, WD, {}, "nvcc --run k.cu", Verdict::kAsk},
      {"GitDiffOutputWritesFile", WA, WD, {}, "git diff --output=/etc/x", Verdict::kAsk},
      {"BareExecRedirectsDescriptors", WA, WD, {}, "exec 2>&1; git status", Verdict::kAllow},
      // Input the parser refuses is asked about, never allowed.
      {"UnterminatedQuote", WA, WD, {}, "git status 'x", Verdict::kAsk},
      {"CaseStatement", WA, WD, {}, "case x in x) git status;; esac", Verdict::kAsk},
      {"EmptyCommand", WA, WD, {}, "   ", Verdict::kAsk},
      {"WorkflowCommandsAllowed",
       WA,
       WD,
       {},
       "git status && git diff HEAD~1 -- src/ && nvcc -O3 -arch=sm_90 -Xptxas -v -c k.cu -o "
       "/dev/null && python -m pytest -q tests/",
       Verdict::kAllow},
  };
}

// gtest prints a failing row by its name rather than as bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class CommandPolicyRegression : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    std::filesystem::create_directories(dir_->File("attention-verify/logs"));
    ::symlink("/etc", dir_->File("attention-verify/link").c_str());
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static testing::TempDir* dir_;
};
testing::TempDir* CommandPolicyRegression::dir_ = nullptr;

std::vector<PermissionRule> Rules(const std::vector<std::string>& texts) {
  std::vector<PermissionRule> out;
  for (const std::string& t : texts) {
    Result<PermissionRule> r = ParsePermissionRule(t);
    EXPECT_TRUE(r.ok()) << t;
    if (r.ok()) out.push_back(*r);
  }
  return out;
}

TEST_P(CommandPolicyRegression, Decides) {
  const Case& c = GetParam();
  PermissionSettings s;
  s.allow = Rules(c.allow);
  s.deny = Rules(c.deny);
  s.ask = Rules(c.ask);
  s.cwd = dir_->path();
  s.package_dir = dir_->File("attention-verify");
  Decision d = DecideCommand(s, c.command);
  std::string trace;
  for (const SubcommandDecision& sub : d.subcommands) {
    trace += "\n  " + std::string(VerdictName(sub.decision)) + " `" + sub.text + "` " + sub.rule +
             " " + sub.reason;
  }
  EXPECT_EQ(VerdictName(d.decision), VerdictName(c.expected))
      << c.command << "\nreason: " << d.reason << trace;
  // The one property that must never break: what is allowed was understood.
  if (d.decision == Verdict::kAllow) {
    for (const SubcommandDecision& sub : d.subcommands) EXPECT_EQ(sub.decision, Verdict::kAllow);
  }
}

INSTANTIATE_TEST_SUITE_P(Bypasses, CommandPolicyRegression, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

TEST(CommandPolicy, DecisionNamesTheDecidingSubcommandAndRule) {
  PermissionSettings s;
  s.allow = Rules(kWorkflowAllow);
  s.deny = Rules(kWorkflowDeny);
  s.deny[1].source = "settings.json:14";
  Decision d = DecideCommand(s, "git status && rm -rf build");
  EXPECT_EQ(d.decision, Verdict::kDeny);
  ASSERT_EQ(d.subcommands.size(), 2u);
  EXPECT_EQ(d.subcommands[0].decision, Verdict::kAllow);
  EXPECT_EQ(d.subcommands[0].rule, "Bash(git status:*)");
  EXPECT_EQ(d.subcommands[1].text, "rm -rf build");
  EXPECT_EQ(d.subcommands[1].rule, "Bash(rm:*) (settings.json:14)");
  EXPECT_NE(d.reason.find("rm -rf build"), std::string::npos) << d.reason;
}

TEST(CommandPolicy, NoRulesAsksForEverything) {
  PermissionSettings s;
  for (const char* c : {"ls", "git status", "true && ls"}) {
    EXPECT_EQ(DecideCommand(s, c).decision, Verdict::kAsk) << c;
  }
  EXPECT_EQ(DecideCommand(s, "true").decision, Verdict::kAllow);
}

}  // namespace
}  // namespace av
