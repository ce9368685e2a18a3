// The word helpers of command_words.h.
#include "policy/command_words.h"

#include <set>

namespace av::policy_detail {

Subject MakeSubject(const std::vector<ShellWord>& words) {
  Subject s;
  for (size_t i = 0; i < words.size(); ++i) {
    const ShellWord& w = words[i];
    if (i > 0) {
      s.allow_text += ' ';
      s.deny_text += ' ';
    }
    if (!w.Literal()) {
      s.allow_text += '\x01';
      s.deny_text += '\x01';
      s.fully_known = false;
      continue;
    }
    for (char c : w.value) s.allow_text += (c == ' ' || c == '\t' || c == '\n') ? '\x02' : c;
    s.deny_text += w.value;
    if (s.fully_known) s.known_prefix += w.value + " ";
  }
  return s;
}

GitView NormalizeGit(const std::vector<ShellWord>& words) {
  static const std::set<std::string> kSafeFlags = {"--no-pager",
                                                   "-P",
                                                   "--no-optional-locks",
                                                   "--literal-pathspecs",
                                                   "--glob-pathspecs",
                                                   "--noglob-pathspecs",
                                                   "--icase-pathspecs",
                                                   "--no-replace-objects",
                                                   "--no-lazy-fetch",
                                                   "--no-advice",
                                                   "-p",
                                                   "--paginate"};
  static const std::set<std::string> kRiskyWithValue = {
      "-C",          "-c",          "--git-dir",    "--work-tree",
      "--namespace", "--exec-path", "--config-env", "--super-prefix"};
  GitView g;
  g.words.push_back(words[0]);
  size_t i = 1;
  for (; i < words.size(); ++i) {
    const ShellWord& w = words[i];
    const std::string& v = w.value;
    if (!w.Literal() || v.empty() || v[0] != '-') break;
    if (kSafeFlags.count(v)) continue;
    if (v == "--bare") {
      g.risky = true;
      continue;
    }
    std::string name = v.substr(0, v.find('='));
    if (kRiskyWithValue.count(name)) {
      g.risky = true;
      if (name == v) ++i;  // the value is the next word
      continue;
    }
    g.understood = false;
    break;
  }
  for (; i < words.size(); ++i) g.words.push_back(words[i]);
  return g;
}

bool IsTrustedProgramPath(const std::string& name) {
  if (name.find('/') == std::string::npos) return true;
  for (const char* dir : {"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/"}) {
    std::string d = dir;
    if (name.compare(0, d.size(), d) == 0 && name.find('/', d.size()) == std::string::npos) {
      return true;
    }
  }
  return false;
}

bool IsSafeVariable(const std::string& name) {
  static const std::set<std::string> kSafe = {"LANG",
                                              "LANGUAGE",
                                              "TZ",
                                              "TERM",
                                              "COLUMNS",
                                              "LINES",
                                              "NO_COLOR",
                                              "FORCE_COLOR",
                                              "CLICOLOR",
                                              "CLICOLOR_FORCE",
                                              "CUDA_VISIBLE_DEVICES",
                                              "CUDA_LAUNCH_BLOCKING",
                                              "CUDA_DEVICE_ORDER",
                                              "CUDA_MODULE_LOADING",
                                              "OMP_NUM_THREADS",
                                              "MKL_NUM_THREADS",
                                              "OPENBLAS_NUM_THREADS",
                                              "PYTHONHASHSEED",
                                              "PYTHONUNBUFFERED",
                                              "PYTHONDONTWRITEBYTECODE",
                                              "NCCL_DEBUG",
                                              "CUBLAS_WORKSPACE_CONFIG",
                                              "TORCH_SHOW_CPP_STACKTRACES"};
  if (name.compare(0, 3, "LC_") == 0) return true;
  if (kSafe.count(name)) return true;
  bool lower = !name.empty();
  for (char c : name)
    lower = lower && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  return lower && name.find("proxy") == std::string::npos;
}

std::string AssignedName(const ShellWord& w) {
  std::string name = w.value.substr(0, w.value.find('='));
  if (!name.empty() && name.back() == '+') name.pop_back();
  return name.substr(0, name.find('['));
}

std::string LexicalNormal(const std::string& path) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    std::string part = path.substr(pos, slash - pos);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    pos = slash + 1;
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

bool HasBashOnlyQuoting(const std::string& script) {
  return script.find("$'") != std::string::npos || script.find("$\"") != std::string::npos;
}

std::string JoinValues(const std::vector<ShellWord>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? " " : "") + words[i].source;
  return out;
}

std::vector<ShellWord> Slice(const std::vector<ShellWord>& words, size_t begin, size_t end) {
  return std::vector<ShellWord>(words.begin() + begin, words.begin() + end);
}

}  // namespace av::policy_detail
