// What each axis of an op's output means, for localisation (numerics/localise.h):
// o [b, s_q, h_q, dv] and lse [b, h_q, s_q] for batched / paged attention and MLA
// decode, packed tokens for varlen, [s_q, h_q(, dv)] for sparse attention, [m, n] for
// GEMMs; plus each sequence's query and key lengths (from case.json's notes) and the
// mask. Layouts: src/sweep/op_schema.cc, case_builder.cc. Pure; any thread.
#pragma once

#include <string>

#include "core/status.h"
#include "numerics/localise.h"
#include "sweep/case_builder.h"
#include "sweep/shapes_config.h"
#include "tensor/tensor.h"

namespace av {

// `notes` are case.json's (key_lengths, query_lengths); for a batch_permutation
// variant they are mapped back to the base case's order, as its outputs are.
Result<LocaliseLayout> OutputLayout(const CaseSpec& spec, const std::string& output,
                                    const Shape& shape, const CaseNotes& notes);

}  // namespace av
