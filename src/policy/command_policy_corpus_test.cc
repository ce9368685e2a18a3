// The command policy against bash itself. A corpus of more than 10,000 commands is
// generated (the workflow's allow list, its tools' safe and dangerous options, quoting,
// brace, parameter and glob expansions, line continuations, wrappers, sh -c, redirections);
// every command the policy allows is then run by real bash in a sandbox folder where the
// tools are shims that record their argv and do nothing. What bash executed is judged by a
// small oracle of its own (which programs the rules name, which of their options run a
// program or write a path, which files appeared outside the package) and decided again
// by the policy as literal words. Any finding is a command the policy allowed although
// bash ran something the rules did not allow. A second test plants allows the policy never
// gives (the turn-3 bypasses) and checks that the harness catches each.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "policy/command_policy.h"
#include "shell/exec_wrappers.h"
#include "testing/test_util.h"

namespace av {
namespace {

const std::vector<std::string> kAllow = {
    "Read",         "Bash(git diff:*)",         "Bash(git status:*)",
    "Bash(nvcc:*)", "Bash(python -m pytest:*)", "Bash(pytest:*)",
    "Bash(ncu:*)",  "Bash(attnverify:*)"};
const std::vector<std::string> kDeny = {"Bash(git push:*)", "Bash(rm:*)", "Bash(curl:*)"};

// ---- The corpus -------------------------------------------------------------------------

struct Atom {
  std::vector<std::string> words;  // shell text, no quoting needed
  size_t key = 0;                  // the word the encodings rewrite
};

// Arguments for every tool: harmless ones, ones that write inside or outside the package,
// and ones that run programs. Names holding PWN are where harm would land.
const std::vector<Atom>& Atoms() {
  static const std::vector<Atom> kAtoms = {
      {{"--stat"}},
      {{"HEAD"}},
      {{"-U5"}},
      {{"--name-only"}},
      {{"-s"}},
      {{"--porcelain"}},
      {{"-O3"}},
      {{"-arch=sm_90"}},
      {{"-Xptxas", "-v"}},
      {{"-Xcompiler", "-fPIC"}},
      {{"-lineinfo"}},
      {{"-x"}},
      {{"-k", "not_slow"}, 1},
      {{"tests/"}},
      {{"-p", "no:cacheprovider"}, 1},
      {{"-q"}},
      {{"-f"}},
      {{"--output=attention-verify/d.diff"}},
      {{"-o", "attention-verify/x.o"}, 1},
      {{"--basetemp=attention-verify/tmp"}},
      {{"--junitxml=attention-verify/j.xml"}},
      {{"--out", "attention-verify/o"}, 1},
      {{"--", "--output=PWNpath"}, 1},
      {{"--", "src/*.cu"}, 1},
      {{"src/{a,b}.cu"}},
      // Harm: writes outside the package.
      {{"--output=outside/PWN1"}},
      {{"--output", "outside/PWN2"}},
      {{"--output=PWNg"}},
      {{"-o", "outside/PWN3"}},
      {{"-o", "outside/PWN3"}, 1},
      {{"-MF", "outside/PWN4"}},
      {{"--keep-dir", "outside/PWN5"}},
      {{"--basetemp=outside/PWN6"}},
      {{"--basetemp=PWNg"}},
      {{"--junitxml=outside/PWN7"}},
      {{"--log-file", "outside/PWN8"}},
      {{"--export=outside/PWN9"}},
      {{"--out", "outside/PWNa"}},
      {{"-o", "attention-verify/../PWNb"}},
      {{"--rootdir=outside"}},
      // Harm: runs a program or reaches the network.
      {{"--ext-diff"}},
      {{"-optf", "PWN.opts"}},
      {{"--options-file=PWN.opts"}},
      {{"-ccbin", "PWNcc"}},
      {{"-Xcompiler", "-wrapper,PWN.sh"}, 1},
      {{"--compiler-options=-B./PWN"}},
      {{"-Xlinker", "-plugin=PWN.so"}},
      {{"--pastebin=all"}},
      {{"-p", "PWNplugin"}},
      {{"-pPWNplugin"}},
      {{"--section-folder", "outside/PWNs"}},
      {{"@PWN.args"}},
      {{"*"}},
  };
  return kAtoms;
}

// Commands the rules allow, with {} where the arguments go.
const std::vector<std::string>& Bases() {
  static const std::vector<std::string> kBases = {"git diff {}",
                                                  "git diff HEAD {}",
                                                  "git --no-pager diff {}",
                                                  "git status {}",
                                                  "nvcc -c x.cu {}",
                                                  "nvcc {} x.cu -o attention-verify/k.o",
                                                  "pytest -q {}",
                                                  "python -m pytest {}",
                                                  "pytest {} tests/test_a.py",
                                                  "ncu --set full {} python -m pytest -q",
                                                  "ncu -o attention-verify/p python -m pytest {}",
                                                  "attnverify report {}",
                                                  "attnverify merge {} a.json",
                                                  "attnverify numerics {}"};
  return kBases;
}

// The ways bash may be handed one word: each returns {assignments before, the word}.
std::pair<std::string, std::string> Encode(const std::string& w, size_t how) {
  std::string tail = w.size() > 1 ? w.substr(1) : "";
  switch (how) {
    case 0:
      return {"", w};
    case 1:
      return {"", "'" + w + "'"};
    case 2:
      return {"", "\"" + w + "\""};
    case 3:
      return {"", "\\" + w};
    case 4:
      return {"", w[0] == '-' ? "$'\\x2d'" + tail : "$'" + w + "'"};
    case 5:
      return {"", "'" + w.substr(0, w.size() / 2) + "'" + w.substr(w.size() / 2)};
    case 6:
      return {"", w.substr(0, w.size() / 2) + "\\\n" + w.substr(w.size() / 2)};
    case 7:
      return {"", "{" + w + ",}"};
    case 8:
      return {"", "{,--stat,-q}" + w};
    case 9:
      return {"v=" + w + "; ", "$v"};
    case 10:
      return {"v=" + w + "; ", "\"$v\""};
    case 11:
      return {"", "${v:-" + w + "}"};
    case 12:
      return {"", "\"${v:-" + w + "}\""};
    case 13:
      return {"", "${v:=" + w + "}"};
    case 14:
      return {"v=1; ", "${v:+" + w + "}"};
    case 15:
      return {"", w.substr(0, w.size() - 1) + "[" + w.substr(w.size() - 1) + "]"};
    case 16:
      return {"", w.substr(0, w.size() - 1) + "?"};
    case 17:
      return {"v='" + w + " -q'; ", "$v"};
    case 18:
      return {"a=(" + w + "); ", "\"${a[@]}\""};
    case 19:
      return {"", "\"$(git status)\"" + w};
    case 20:
      return {"set -- " + w + "; ", "\"$@\""};
    default:
      return {"", "x" + w};  // prefixed: a plain operand
  }
}
constexpr size_t kEncodings = 22;

const std::vector<std::string> kWrappers = {
    "",       "timeout 5 ",  "nice -n 5 ", "env LC_ALL=C ", "command ",
    "nohup ", "stdbuf -oL ", "bash -c ",   "sh -c ",        "time "};
const std::vector<std::string> kRedirections = {"",
                                                " > attention-verify/out.log",
                                                " 2>outside/PWNr",
                                                " >> attention-verify/../PWNr",
                                                " > /dev/null 2>&1",
                                                " > ~/PWNr",
                                                "",
                                                " | git status",
                                                " && git status"};

std::string SingleQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> GenerateCorpus() {
  std::vector<std::string> out;
  std::set<std::string> seen;
  const auto& atoms = Atoms();
  const auto& bases = Bases();
  size_t n = 0;
  for (size_t b = 0; b < bases.size(); ++b) {
    for (size_t a = 0; a < atoms.size(); ++a) {
      for (size_t e = 0; e < kEncodings; ++e, ++n) {
        std::vector<std::string> words = atoms[a].words;
        auto [pre, word] = Encode(words[atoms[a].key], e);
        words[atoms[a].key] = word;
        std::string args;
        for (const std::string& w : words) args += (args.empty() ? "" : " ") + w;
        std::string cmd = bases[b];
        cmd.replace(cmd.find("{}"), 2, args);
        const std::string& wrap = kWrappers[(n * 7 + a) % kWrappers.size()];
        const std::string& redirect = kRedirections[(n * 5 + b) % kRedirections.size()];
        std::string text = wrap == "bash -c " || wrap == "sh -c "
                               ? wrap + SingleQuote(pre + cmd) + redirect
                               : pre + wrap + cmd + redirect;
        if (seen.insert(text).second) out.push_back(text);
      }
    }
  }
  return out;
}

// ---- Running what the policy allows -----------------------------------------------------

struct Exec {
  std::string id, cwd;
  std::vector<std::string> argv;  // argv[0] as bash found it; "NOTFOUND:x" when it did not
};

struct Run {
  std::vector<Exec> execs;
  std::map<std::string, std::vector<std::string>> new_files;  // command id -> paths
};

// The allowed tools, and programs harm would need: all record and do nothing.
const char* const kShims[] = {"git",  "nvcc",       "pytest", "python", "python3", "ncu",
                              "nsys", "attnverify", "rm",     "touch",  "curl",    "cat",
                              "cp",   "mv",         "tee",    "id"};
const char* const kRealPrograms[] = {"timeout", "nice", "env", "nohup", "stdbuf", "bash", "sh"};

std::string RealPath(const std::string& name) {
  for (const char* dir : {"/usr/bin/", "/bin/"}) {
    if (::access((dir + name).c_str(), X_OK) == 0) return dir + name;
  }
  return "";
}

void WriteFile(const std::string& path, const std::string& text, mode_t mode = 0644) {
  std::ofstream(path, std::ios::binary) << text;
  ::chmod(path.c_str(), mode);
}

// The sandbox: a repository root with attention-verify/ (the package), outside/ and home/
// (places harm would land), bin/ (shims and the real wrappers), and files a glob can turn
// into options.
void MakeSandbox(const std::string& s) {
  namespace fs = std::filesystem;
  for (const char* d : {"attention-verify", "outside", "home", "bin", "tests", "src", ".corpus"}) {
    fs::create_directories(s + "/" + d);
  }
  WriteFile(s + "/x.cu", "__global__ void k() {}\n");
  WriteFile(s + "/src/a.cu", "");
  WriteFile(s + "/PWN.opts", "-ccbin ./PWNcc\n");
  for (const Atom& a : Atoms()) {  // a file named like each one-word option: globs match it
    const std::string& w = a.words[0];
    if (a.words.size() == 1 && w[0] == '-' && w.find('/') == std::string::npos) {
      WriteFile(s + "/" + w, "");
    }
  }
  std::string shim =
      "#!/bin/sh\nprintf '%s\\000' '\002REC' \"$AVC_ID\" \"$PWD\" \"$0\" "
      "\"$@\" >> '" +
      s + "/.corpus/log'\n";
  for (const char* name : kShims) WriteFile(s + "/bin/" + name, shim, 0755);
  for (const char* name : kRealPrograms) {
    std::string real = RealPath(name);
    if (!real.empty()) fs::create_symlink(real, s + "/bin/" + name);
  }
}

std::vector<std::string> SplitNul(const std::string& data) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t nul = data.find('\0', pos);
    if (nul == std::string::npos) nul = data.size();
    out.push_back(data.substr(pos, nul - pos));
    pos = nul + 1;
  }
  return out;
}

// One bash process runs every command, each in a subshell with the sandbox as its folder;
// after each, the files outside the package are listed again.
Run RunInBash(const std::string& s, const std::vector<std::pair<std::string, std::string>>& cmds) {
  std::string list;
  for (const auto& [id, text] : cmds) list += id + '\0' + text + '\0';
  WriteFile(s + "/.corpus/cmds", list);
  WriteFile(s + "/.corpus/harness.sh", R"sh(
S=$1; LOG=$S/.corpus/log
export PATH=$S/bin HOME=$S/home
command_not_found_handle() {
  printf '%s\0' $'\002REC' "$AVC_ID" "$PWD" "NOTFOUND:$1" "${@:2}" >> "$LOG"; return 127; }
export -f command_not_found_handle
snap() { SNAP=("$S"/* "$S"/.[!.]* "$S"/*/* "$S"/*/.[!.]* "$S"/home/.[!.]*); }
cd "$S" || exit 3
snap; before="${SNAP[*]}"
printf '%s\0' $'\002FILES' "-" "${SNAP[@]}" >> "$LOG"
while IFS= read -r -d '' -u 3 id && IFS= read -r -d '' -u 3 c; do
  export AVC_ID=$id
  ( eval "$c"
    wait ) </dev/null >/dev/null 2>&1 3<&-
  snap
  if [[ "${SNAP[*]}" != "$before" ]]; then
    printf '%s\0' $'\002FILES' "$id" "${SNAP[@]}" >> "$LOG"; before="${SNAP[*]}"
  fi
done 3< "$S/.corpus/cmds"
)sh");
  std::string bash = RealPath("bash");
  std::string prefix;
  if (testing::RunShell("bwrap --ro-bind / / --dev /dev true 2>/dev/null").exit_code == 0) {
    // Read-only everywhere but the sandbox, no network: a miss cannot harm this machine.
    prefix = "bwrap --ro-bind / / --dev /dev --proc /proc --bind '" + s + "' '" + s +
             "' --unshare-net --die-with-parent ";
  }
  testing::CommandResult r =
      testing::RunShell(prefix + bash + " '" + s + "/.corpus/harness.sh' '" + s + "' 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(s + "/.corpus/log", std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  Run run;
  std::vector<std::string> fields = SplitNul(buf.str());
  std::set<std::string> baseline;
  for (size_t i = 0; i < fields.size();) {
    size_t end = i + 1;
    while (end < fields.size() && fields[end] != "\002REC" && fields[end] != "\002FILES") ++end;
    if (fields[i] == "\002REC" && end - i >= 4) {
      run.execs.push_back({fields[i + 1], fields[i + 2],
                           std::vector<std::string>(fields.begin() + i + 3, fields.begin() + end)});
    } else if (fields[i] == "\002FILES" && end - i >= 2) {
      std::set<std::string> now(fields.begin() + i + 2, fields.begin() + end);
      for (const std::string& f : now) {
        if (!baseline.count(f) && fields[i + 1] != "-") run.new_files[fields[i + 1]].push_back(f);
      }
      baseline = std::move(now);
    }
    i = end;
  }
  return run;
}

// ---- The oracle ---------------------------------------------------------------------------

std::string Normal(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '/');) {
    if (p == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!p.empty() && p != ".") {
      parts.push_back(p);
    }
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out;
}

// What the rules allow one executed program to do; "" when it is within them.
std::string Judge(const Exec& e, const std::string& s) {
  const std::string pkg = Normal(s + "/attention-verify");
  if (e.argv[0].rfind("NOTFOUND:", 0) == 0)
    return "ran " + e.argv[0].substr(9) + ", named by no rule";
  std::string prog = Basename(e.argv[0]);
  std::vector<std::string> a(e.argv.begin() + 1, e.argv.end());
  size_t i = 0;
  std::set<std::string> writes, runs;
  auto inside = [&](const std::string& v, bool itself) {
    std::string n = Normal(v.empty() || v[0] != '/' ? e.cwd + "/" + v : v);
    return n == "/dev/null" || n.rfind(pkg + "/", 0) == 0 || (itself && n == pkg);
  };
  if (prog == "git") {
    while (i < a.size() && (a[i] == "--no-pager" || a[i] == "-p" || a[i] == "-P")) ++i;
    if (i >= a.size() || (a[i] != "diff" && a[i] != "status"))
      return "git runs a subcommand no rule names";
    ++i;
    writes = {"--output"};
    runs = {"--ext-diff"};
  } else if (prog == "nvcc") {
    writes = {"-o",         "--output-file",      "-odir", "-MF", "-keep-dir",
              "--keep-dir", "--dependency-output"};
    runs = {"-optf", "--options-file", "-ccbin",   "--compiler-bindir",
            "-run",  "--run",          "-Xlinker", "--linker-options"};
  } else if (prog == "python" || prog == "pytest") {
    if (prog == "python") {
      if (a.size() < 2 || a[0] != "-m" || a[1] != "pytest")
        return "python runs something other than -m pytest";
      i = 2;
    }
    writes = {"--basetemp", "--junitxml", "--junit-xml", "--log-file", "--rootdir", "--debug"};
    runs = {"--pastebin", "-c", "--config-file", "-o", "--override-ini"};
  } else if (prog == "ncu") {
    // The program ncu would start is judged as if it ran.
    for (size_t k = 0; k < a.size(); ++k) {
      std::string inner = Basename(a[k]);
      if (inner == "python" || inner == "pytest" || inner == "nvcc" || inner == "git") {
        std::string why = Judge({e.id, e.cwd, std::vector<std::string>(a.begin() + k, a.end())}, s);
        if (!why.empty()) return "under ncu: " + why;
        a.resize(k);
        break;
      }
    }
    writes = {"-o", "--export", "--log-file"};
    runs = {"--section-folder", "--section-folder-recursive"};
  } else if (prog == "attnverify") {
    if (!a.empty() && (a[0] == "agent" || a[0] == "provider" || a[0] == "agent-config")) {
      return "attnverify " + a[0] + " is never allowed";
    }
    writes = {"--out",  "--export", "--md",      "--sarif",  "--junit", "--evidence", "--work",
              "--perf", "--record", "--package", "--config", "-c",      "--ledger"};
  } else {
    return "ran " + prog + ", named by no rule";
  }
  for (; i < a.size(); ++i) {
    const std::string& v = a[i];
    if (v == "--" && prog != "nvcc") break;
    if (!v.empty() && v[0] == '@' && prog != "git" && prog != "attnverify") {
      return prog + " reads arguments from " + v;
    }
    std::string name = v.substr(0, v.find('='));
    bool attached = name.size() < v.size();
    if (runs.count(name)) return prog + " " + name + " runs a program or reaches the network";
    if ((prog == "pytest" || prog == "python") && v.rfind("-p", 0) == 0 && v.rfind("--", 0) != 0) {
      std::string plugin = v.size() > 2 ? v.substr(2) : (i + 1 < a.size() ? a[i + 1] : "");
      if (plugin.rfind("no:", 0) != 0) return "pytest loads plugin " + plugin;
    }
    if (prog == "nvcc" && (name == "-Xcompiler" || name == "--compiler-options")) {
      std::string value = attached ? v.substr(name.size() + 1) : (i + 1 < a.size() ? a[i + 1] : "");
      for (const char* bad : {"-wrapper", "-B", "-fplugin", "-specs", "@"}) {
        if (value.find(bad) != std::string::npos)
          return "nvcc passes " + value + " to the host compiler";
      }
    }
    if (prog == "ncu" && v.size() > 2 && v.rfind("-o", 0) == 0 && v[2] != '-') {
      if (!inside(v.substr(2), false)) return "ncu writes " + v.substr(2);
    }
    if (!writes.count(name)) continue;
    std::string value = attached ? v.substr(name.size() + 1) : (i + 1 < a.size() ? a[i + 1] : "");
    if (!inside(value, prog == "attnverify")) return prog + " " + name + " writes " + value;
  }
  return "";
}

std::vector<PermissionRule> Rules(const std::vector<std::string>& texts) {
  std::vector<PermissionRule> out;
  for (const std::string& t : texts) out.push_back(*ParsePermissionRule(t));
  return out;
}

struct Report {
  size_t corpus = 0, allowed = 0, executed = 0;
  std::map<std::string, std::vector<std::string>> findings;  // command -> what went wrong
};

// Decides every command with `allows`, runs the allowed ones and judges what bash ran.
Report Check(const std::vector<std::string>& corpus,
             const std::function<bool(const std::string&)>& allows, const std::string& s,
             const PermissionSettings& settings) {
  Report rep;
  rep.corpus = corpus.size();
  std::vector<std::pair<std::string, std::string>> cmds;
  for (size_t i = 0; i < corpus.size(); ++i) {
    if (allows(corpus[i])) cmds.push_back({std::to_string(i), corpus[i]});
  }
  rep.allowed = cmds.size();
  Run run = RunInBash(s, cmds);
  std::set<std::string> ran;
  for (const Exec& e : run.execs) {
    if (e.id.empty() || e.id.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(e.id) >= corpus.size()) {
      rep.findings["(a program run with its environment cleared)"].push_back(e.argv[0]);
      continue;
    }
    const std::string& cmd = corpus.at(std::stoul(e.id));
    ran.insert(e.id);
    std::string why = Judge(e, s);
    if (why.empty()) {
      // The same argv as literal words must be allowed too.
      std::string literal = Basename(e.argv[0]);
      for (size_t k = 1; k < e.argv.size(); ++k) literal += " " + SingleQuote(e.argv[k]);
      Decision d = DecideCommand(settings, literal);
      if (d.decision != Verdict::kAllow) why = "ran `" + literal + "`, which is " + d.reason;
    }
    if (!why.empty()) rep.findings[cmd].push_back(why);
  }
  for (const auto& [id, files] : run.new_files) {
    for (const std::string& f : files) {
      if (f.rfind(s + "/attention-verify/", 0) != 0) {
        rep.findings[corpus.at(std::stoul(id))].push_back("wrote " + f);
      }
    }
  }
  rep.executed = ran.size();
  return rep;
}

class CommandPolicyCorpus : public ::testing::Test {
 protected:
  void SetUp() override {
    MakeSandbox(dir_.path());
    settings_.allow = Rules(kAllow);
    settings_.deny = Rules(kDeny);
    settings_.cwd = dir_.path();
    settings_.package_dir = dir_.path() + "/attention-verify";
  }
  bool PolicyAllows(const std::string& c) const {
    return DecideCommand(settings_, c).decision == Verdict::kAllow;
  }
  testing::TempDir dir_;
  PermissionSettings settings_;
};

TEST_F(CommandPolicyCorpus, WhatBashRunsForAnAllowedCommandIsAllowed) {
  std::vector<std::string> corpus = GenerateCorpus();
  Report rep = Check(
      corpus, [&](const std::string& c) { return PolicyAllows(c); }, dir_.path(), settings_);
  std::printf("corpus %zu commands, %zu allowed, %zu of them ran a program, %zu findings\n",
              rep.corpus, rep.allowed, rep.executed, rep.findings.size());
  EXPECT_GE(rep.corpus, 10000u);
  // Enough of the corpus is allowed and reaches a program for the check to mean something.
  EXPECT_GE(rep.allowed, 1000u);
  EXPECT_GE(rep.executed, 1000u);
  size_t shown = 0;
  for (const auto& [cmd, why] : rep.findings) {
    if (shown++ < 20) ADD_FAILURE() << "allowed: " << cmd << "\n  but: " << why[0];
  }
  EXPECT_EQ(rep.findings.size(), 0u);
}

// The harness must be able to fail: allows planted for the turn-3 bypasses (each once
// allowed, issue 34) are all caught from what bash ran.
TEST_F(CommandPolicyCorpus, PlantedAllowsAreCaught) {
  const std::vector<std::string> planted = {
      "git diff {--output=outside/PWN1,--stat}",
      "o=--output=outside/PWN1; git diff $o",
      "git diff ${o:---output=outside/PWN1}",
      "git diff --outpu[t]=PWNg",
      "git diff *",
      "nvcc -optf PWN.opts -c x.cu",
      "nvcc --options-file PWN.opts -c x.cu",
      "nvcc -Xcompiler -wrapper,PWN.sh -c x.cu",
      "nvcc -Xcompiler -B./PWN -c x.cu",
      "nvcc -Xcompiler -fplugin=PWN.so -c x.cu",
      "nvcc -o outside/PWN3 -E x.cu",
      "nvcc -M -MF outside/PWN4 x.cu",
      "nvcc -keep --keep-dir outside/PWN5 -c x.cu",
      "pytest --basetemp=outside/PWN6 tests",
      "python -m pytest --basetemp=outside/PWN6",
      "pytest --pastebin=all",
      "pytest --junitxml=outside/PWN7",
      "ncu -o outside/PWN9 python -m pytest -q",
      "ncu --log-file outside/PWN8 python -m pytest -q",
      "ncu --section-folder outside/PWNs python -m pytest -q",
      "attnverify agent-config emit --out outside/PWNa --force",
      "git status > outside/PWNr",
      "n='5 rm -rf outside'; timeout 5 nice -n $n git status",
  };
  std::set<std::string> set(planted.begin(), planted.end());
  std::vector<std::string> corpus = planted;
  corpus.push_back("git status");  // a control the policy allows and that is fine
  Report rep = Check(
      corpus, [&](const std::string& c) { return set.count(c) || PolicyAllows(c); }, dir_.path(),
      settings_);
  for (const std::string& c : planted) {
    EXPECT_FALSE(PolicyAllows(c)) << c;
    EXPECT_TRUE(rep.findings.count(c)) << "not caught: " << c;
  }
  EXPECT_FALSE(rep.findings.count("git status"));
}

}  // namespace
}  // namespace av
