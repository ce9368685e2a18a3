// The files a build's sources pull in, for the dynamic shared memory scan (smem_scan.h):
// each [build] source and, followed transitively, every `#include "..."` or `<...>` that
// resolves to a regular file inside the build root, looked up beside the including file
// (quoted includes only) and then in the -I/-isystem folders of [build] flags, as nvcc
// would. Launches often live in headers (CUTLASS and flash-attention keep
// `kernel<<<grid, block, smem_size, stream>>>` in a `*_launch_template.h`). Headers outside
// the root (system, CUDA) are not read; #if is not evaluated, so a header behind a false
// condition is read too (more launch sites, never fewer). Reads files; any thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace av {

struct SourceWalk {
  int files = 0;                      // files visited
  std::vector<std::string> warnings;  // a cap was reached: some includes were not followed
};

// Calls `visit(shown, text, is_source)` once per file, sources first; `shown` is the path
// relative to `root` (a source as configured). Caps: 4096 files and 256 MiB read in all, 64
// MiB per file; beyond them the walk stops with a warning.
SourceWalk WalkSourcesAndIncludes(
    const std::string& root, const std::vector<std::string>& sources,
    const std::vector<std::string>& flags,
    const std::function<void(const std::string& shown, std::string_view text, bool is_source)>&
        visit);

}  // namespace av
