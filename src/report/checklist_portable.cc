#include "report/checklist_portable.h"

#include <filesystem>

namespace av::checklist {
namespace {

namespace fs = std::filesystem;

// Replaces `from` where it is a whole path (`from` ending in '/' is a prefix, followed by
// anything).
void ReplaceAll(std::string* text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  const bool prefix = from.back() == '/';
  for (size_t at = text->find(from); at != std::string::npos;
       at = text->find(from, at + to.size())) {
    // Only whole path components: "/a/pkg" must not match inside "/a/pkg2/x".
    const size_t end = at + from.size();
    const bool ends = prefix || end == text->size() || (*text)[end] == '/' || (*text)[end] == ' ' ||
                      (*text)[end] == '\'' || (*text)[end] == '`' || (*text)[end] == ')' ||
                      (*text)[end] == ',' || (*text)[end] == ':' || (*text)[end] == '"';
    if (!ends) {
      at = end - to.size();  // continue after this occurrence
      continue;
    }
    text->replace(at, from.size(), to);
  }
}

}  // namespace

std::string PortableText(const std::string& text, const std::string& package_dir,
                         const std::string& config_file, const std::string& display_config) {
  if (package_dir.empty() || display_config.empty() || fs::path(display_config).is_absolute())
    return text;
  const std::string package = fs::path(package_dir).lexically_normal().string();
  std::string shown_dir = fs::path(display_config).parent_path().lexically_normal().string();
  std::string out = text;
  ReplaceAll(&out, (fs::path(package) / config_file).string(), display_config);
  if (shown_dir.empty() || shown_dir == ".") {
    ReplaceAll(&out, package + "/", "");
    ReplaceAll(&out, package, ".");
  } else {
    ReplaceAll(&out, package, shown_dir);
  }
  return out;
}

void PortableReport(const std::string& package_dir, const std::string& config_file,
                    const std::string& display_config, ChecklistReport* report) {
  auto fix = [&](std::string* s) {
    *s = PortableText(*s, package_dir, config_file, display_config);
  };
  for (ItemResult& item : report->items) {
    fix(&item.reason);
    for (std::string& n : item.notes) fix(&n);
    for (Check& c : item.checks) {
      fix(&c.summary);
      fix(&c.missing_command);
      for (std::string& d : c.details) fix(&d);
      for (Citation& cite : c.citations) fix(&cite.command);
    }
    for (Finding& f : item.findings) {
      for (std::string& arg : f.verify) fix(&arg);
      fix(&f.legacy_verify);
    }
    for (AgentQuestion& q : item.agent_findings) fix(&q.command);
  }
  for (Finding& f : report->findings) {
    for (std::string& arg : f.verify) fix(&arg);
    fix(&f.legacy_verify);
  }
  for (EvidenceFile& e : report->evidence) fix(&e.command);
  for (EvidenceBinding& b : report->bindings) fix(&b.rerun);
  for (std::string& w : report->warnings) fix(&w);
  fix(&report->verdict_reason);
}

}  // namespace av::checklist
