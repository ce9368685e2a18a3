// The provenance block every evidence file attnverify writes carries as its top-level
// "provenance": which run and stage wrote it, the argv that made it (an array, never a
// command line), where it ran, the package-relative config, the head commit when the
// stage knows it, the sha256 of each input it read, and when. The report binds evidence
// to its run with it. Paths are package-relative (relative to the folder holding
// attnverify.toml); readers resolve them against that folder. Format:
// doc/formats/provenance-json.md. Pure values; NewRunId reads the environment.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/json_reader.h"
#include "core/status.h"

namespace av {

// Set by `attnverify run` for each stage it starts, so that all of one run's evidence
// shares one id.
inline constexpr const char* kRunIdEnv = "ATTNVERIFY_RUN_ID";

struct InputDigest {
  std::string path;  // package-relative when inside the package, else absolute
  std::string sha256;
};

struct Provenance {
  std::string run_id;             // "20261201T093000Z-3f9a1c"
  std::string stage;              // "numerics", "build", "review", "slice", "merge", "compare"
  std::vector<std::string> argv;  // {"attnverify", "build", "--config", "a v/attnverify.toml"}
  std::string cwd;          // absolute: where the command ran (argv's paths are relative to it)
  std::string config;       // attnverify.toml, package-relative; empty: none was read
  std::string head_commit;  // empty: not known to this stage
  std::vector<InputDigest> inputs;
  std::string started, finished;  // RFC 3339 UTC: "2026-12-01T09:30:00Z"
  std::string tool_name = "attnverify";
  std::string tool_version;
};

// $ATTNVERIFY_RUN_ID when set to 1..128 characters of [A-Za-z0-9._:-], else a fresh id:
// the UTC time and 24 random bits, "20261201T093000Z-3f9a1c".
std::string NewRunId();
std::string UtcNowRfc3339();

// A block for a stage starting now: run id, stage, argv, the current folder, the start
// time and this attnverify's version. The stage adds config, inputs, head commit and
// the finish time.
Provenance StartProvenance(std::string stage, std::vector<std::string> argv);

// `path` as evidence records it: relative to `package_dir` ('/'-separated, no "./") when
// it lies inside, else absolute. Both are made absolute against the current folder first.
std::string PackageRelative(const std::string& package_dir, const std::string& path);
// The reverse: a recorded path resolved against the package folder.
std::string ResolveInPackage(const std::string& package_dir, const std::string& recorded);

// Appends `path` (package-relative) with the sha256 of `bytes`, what the stage read.
void AddInput(Provenance* p, const std::string& package_dir, const std::string& path,
              std::string_view bytes);
// The same with the file's digest read from disk; a file that cannot be read is an error.
Status AddInputFile(Provenance* p, const std::string& package_dir, const std::string& path);

nlohmann::json ProvenanceToJson(const Provenance& p);
// Reads `$.provenance` of `doc` into `out`; `*present` says whether the file had one
// (files of schema version 1 do not).
Status ParseProvenance(const JsonReader& in, const nlohmann::json& doc, Provenance* out,
                       bool* present);

}  // namespace av
