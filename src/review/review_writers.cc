#include "review/review_writers.h"

#include "core/shell_quote.h"
#include "findings/finding_writers.h"

namespace av {

std::string ReviewToMarkdown(const ReviewReport& report) {
  std::string md = "# Review 01 (built-in rules)\n\n";
  md +=
      "Findings are questions for the author, each with the command whose evidence answers it; "
      "they are not verdicts.\n\n";
  if (!report.base.empty()) {
    md += "- base: `" + report.base + "` (" + report.base_commit + ")\n";
    md += "- head: " + report.head_commit + "\n";
  }
  md += "- command: `" +
        MarkdownInline(report.provenance.argv.empty() ? report.legacy_command
                                                      : ShellJoin(report.provenance.argv)) +
        "`\n";
  md += "- diffs: ";
  for (size_t i = 0; i < report.diffs.size(); ++i) {
    const ReviewedDiff& d = report.diffs[i];
    md += (i ? ", " : "") + std::string("`") + d.path + "` (" + std::to_string(d.files) +
          (d.files == 1 ? " file)" : " files)");
  }
  if (report.diffs.empty()) md += "none";
  md += "\n- files reviewed: " + std::to_string(report.files_reviewed) +
        ", skipped (tests, docs, binaries, " +
        "other languages): " + std::to_string(report.files_skipped) + "\n";
  if (!report.disabled_rules.empty()) {
    md += "- disabled rules:";
    for (const std::string& r : report.disabled_rules) md += " `" + r + "`";
    md += "\n";
  }
  md += FindingsCount(report.findings);
  if (!report.config_changes.empty()) {
    md +=
        "\nThe package's own configuration changed since the base revision:\n\n"
        "| file | setting | base | head | effect |\n|---|---|---|---|---|\n";
    for (const ConfigChange& c : report.config_changes) {
      md += "| `" + MarkdownInline(c.file) + "` | `" + MarkdownInline(c.json_path) + "` | `" +
            MarkdownInline(c.old_json) + "` | `" + MarkdownInline(c.new_json) + "` | " + c.effect +
            " |\n";
    }
  } else if (!report.config_reviewed && !report.config_not_reviewed.empty()) {
    md +=
        "\nThe package's own configuration was not compared: " + report.config_not_reviewed + ".\n";
  }
  md += FindingsDetail(report.findings);
  return md;
}

}  // namespace av
