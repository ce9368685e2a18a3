// `attnverify numerics` as a library: expand the sweeps, write each case, run the
// candidate (before the reference for that case is computed), check its inputs came
// back unchanged, compute the reference, compare every output under tolerances.json.
// A candidate's crash, timeout, bad exit, missing / mis-shaped / NaN output fails its
// case with a reason; only configuration and I/O problems are error Statuses.
// RunNumericsSweep runs `jobs` cases at once on its own threads; the ProcessRunner must
// be thread-safe (PosixProcessRunner is; FakeProcessRunner in tests is used with jobs=1).
#pragma once

#include <string>

#include "core/status.h"
#include "sweep/numerics_run_types.h"

namespace av {

// Parses "i/N" (0 <= i < N).
Status ParseShard(const std::string& text, int* index, int* count);

Result<NumericsRun> RunNumericsSweep(const NumericsOptions& options);

}  // namespace av
