// Importing one profiler export into KernelProfiles (profile/perf_model.h). One reader per
// format, each streamed through CsvReader (a 50 MB ncu export costs one record of
// memory): ncu --csv details page, ncu --csv --page raw, nsys cuda_gpu_kern_sum (and the
// older gpukernsum column sets), Google Benchmark JSON, and a plain kernel,shape,time_ns
// CSV. Columns are found by header name, never by position. Formats: doc/profile.md.
// Pure functions over a stream; any thread.
#pragma once

#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "profile/perf_model.h"

namespace av::profile {

enum class ImportFormat { kAuto, kNcuDetails, kNcuRaw, kNsysKernSum, kGoogleBenchmark, kTimingCsv };

// "auto", "ncu", "ncu-raw", "nsys", "gbench", "csv"; nullopt for anything else.
std::optional<ImportFormat> ParseImportFormat(std::string_view name);
const char* ImportFormatName(ImportFormat f);  // "ncu-details", "ncu-raw", ...

struct ImportOptions {
  std::string label;   // "base" or "head"
  std::string shape;   // --shape: applies to every kernel of the file (ncu, nsys)
  std::string shown;   // the file as named on the command line (messages, source_file)
  std::string sha256;  // of the file's bytes
};

// Kernels of an ncu details page (one row per metric per launch). The preamble before the
// first row whose first field is "ID" is skipped; a file with an ==ERROR== line and no
// header is an error quoting that line.
Result<std::vector<KernelProfile>> ImportNcuDetails(std::istream& in, const ImportOptions& opt);
// Kernels of an ncu raw page (one row per launch, metric names as columns, a units row).
Result<std::vector<KernelProfile>> ImportNcuRaw(std::istream& in, const ImportOptions& opt);
// Either ncu page, told apart by the header ("Metric Name" is the details page's).
Result<std::vector<KernelProfile>> ImportNcu(std::istream& in, const ImportOptions& opt);
Result<std::vector<KernelProfile>> ImportNsysKernSum(std::istream& in, const ImportOptions& opt);
Result<std::vector<KernelProfile>> ImportGoogleBenchmark(std::string_view text,
                                                         const ImportOptions& opt);
Result<std::vector<KernelProfile>> ImportTimingCsv(std::istream& in, const ImportOptions& opt);

// The format of a file from its first bytes; kAuto when none fits.
ImportFormat DetectImportFormat(std::string_view head);

// Opens `path`, hashes it, picks the reader (`format` or detected) and imports.
Result<std::vector<KernelProfile>> ImportProfileFile(const std::string& path, ImportFormat format,
                                                     ImportOptions opt);

// --- shared by the readers (import_common.cc) ---

// The figure name (profile/perf_model.h fig::) an ncu metric feeds, by its details-page
// name ("Duration", "SOL FB") or its raw name ("gpu__time_duration.sum"); nullptr if none.
const char* FigureForMetric(std::string_view metric_name);
// Sets `name` on `launch` from a printed value and unit unless already set (the first of
// several metrics feeding one figure wins). Instance values "(1;2)" are summed for .sum
// metrics and averaged otherwise; "agg (…)" forms are not split. False when not a number.
// A time figure (duration) that is negative or in a unit that is not a time unit is an
// error (TimeInNs), for the caller to place at FILE:LINE.
Result<bool> SetFigure(Launch* launch, const char* name, std::string_view metric_name,
                       const std::string& raw, const std::string& raw_unit);
// Derives occupancy_limiter from the block_limit_* figures.
void DeriveLimiter(Launch* launch);
// Groups launches by kernel key, in the order each kernel first appears.
std::vector<KernelProfile> GroupByKernel(
    const std::vector<std::pair<std::string, Launch>>& launches, const KernelProfile& proto);
// Column index of `name` in `header` (exact match), or -1.
int FindColumn(const std::vector<std::string>& header, std::string_view name);

}  // namespace av::profile
