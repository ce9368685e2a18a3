// Reports that read right on another machine: a package made on a GPU box is judged and
// read on a laptop, so the report names the package's files package-relative and its
// config as commands name it (cfg.path, e.g. "attention-verify/attnverify.toml"), never
// by the absolute paths of the machine where a stage ran. PortableReport is the last step
// of ComputeChecklist (doc/report.md, "Commands"). Pure; any thread.
#pragma once

#include <string>

#include "report/checklist.h"

namespace av::checklist {

// Rewrites, in every command, detail and finding of `report`: the absolute path of the
// package's config (`package_dir`/`config_file`) to `display_config`, and the absolute
// package folder to the folder `display_config` names. Paths outside the package are
// kept (they name files the report cannot make relative).
void PortableReport(const std::string& package_dir, const std::string& config_file,
                    const std::string& display_config, ChecklistReport* report);

// The same rewrite of one string (exposed for tests).
std::string PortableText(const std::string& text, const std::string& package_dir,
                         const std::string& config_file, const std::string& display_config);

}  // namespace av::checklist
