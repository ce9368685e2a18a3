// Cases a numerics run draws from each sweep's own parameter space, seeded by the run's
// salt: a few shapes nobody has seen before the run, judged like every other case and
// marked `drawn` in numerics.json. A candidate tuned to the published sweep (correct only
// on its shapes, or keyed by its case ids) passes every listed case and fails these.
// Format: doc/formats/candidate-protocol.md ("Cases drawn per run"). Pure; any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "sweep/shapes_config.h"

namespace av {

// The parameters a drawn case varies, per op: the problem's dimensions, which a kernel
// must accept whatever they are (FlashMLA's and DeepGEMM's own grids vary them). Head
// dims, page sizes and the like stay as listed: a real kernel may support only those.
const std::vector<std::string>& DrawnShapeKeys(const std::string& op);

// `per_sweep` cases for each sweep of `config` whose dimensions take more than one value,
// appended after `expanded` (its ExpandCases result) as base cases without variants:
// group_index and index continue the expansion's. Each starts from one of the sweep's
// base cases, picked at random, and draws every shape key (DrawnShapeKeys) on the lattice
// the sweep's own values span for it: multiples of their greatest common divisor between
// their least and greatest (n in {192, 576} gives 192, 384, 576). A draw whose dimensions
// equal those of a listed case of the sweep, or that the op cannot run
// (CheckCaseConstraints), is drawn again, up to 64 times; a sweep with nothing new to draw
// gets fewer. Ids are "<sweep>.drawn<k>.<every parameter>.<dtype>.s<seed>". The same
// (config, salt) gives the same cases on every machine (sweep/rng.h).
std::vector<CaseSpec> DrawCases(const ShapesConfig& config, const std::vector<CaseSpec>& expanded,
                                uint64_t salt, int per_sweep);

}  // namespace av
