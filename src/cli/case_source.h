// Where `attnverify cases` and `attnverify judge` get their sweep: an attnverify.toml
// ([numerics]) or shapes.json and tolerances.json named directly (the pytest plugin's
// --shapes / --tolerances), and which cases of it a run keeps (--filter, --case).
// Only cli/ uses this.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "sweep/numerics_config.h"
#include "sweep/shapes_config.h"

namespace av::cli {

struct CaseSourceFlags {
  std::string config;  // attnverify.toml; empty: the default one when it exists
  std::string shapes, tolerances;
  std::string package;  // the package folder; empty: the toml's, else derived from shapes
};

// A NumericsConfig for the flags: the toml's when there is one (--config, else the
// attnverify.toml beside a config/ folder holding --shapes), with --shapes and
// --tolerances taking precedence; without a toml, the package is --package, else the
// folder above shapes.json's folder when that folder is named "config" (the layout
// `attnverify init` writes), else shapes.json's folder. Evidence defaults to
// PACKAGE/evidence/numerics.json. No [candidate] is read or required.
Result<NumericsConfig> ResolveCaseSource(const CaseSourceFlags& flags);

// An ECMAScript regex matching exactly the given case ids (ids hold only
// [A-Za-z0-9._=+-]; anything else is an error naming the id).
Result<std::string> ExactIdFilter(const std::vector<std::string>& ids);

}  // namespace av::cli
