// Format detection and ImportProfileFile: open, hash, dispatch.
#include "profile/import.h"

#include <fstream>

#include "core/file.h"
#include "core/sha256.h"

namespace av::profile {
namespace {

struct FormatName {
  std::string_view flag;
  ImportFormat format;
  const char* name;
};
constexpr FormatName kFormats[] = {
    {"auto", ImportFormat::kAuto, "auto"},
    {"ncu", ImportFormat::kNcuDetails, "ncu-details"},
    {"ncu-raw", ImportFormat::kNcuRaw, "ncu-raw"},
    {"nsys", ImportFormat::kNsysKernSum, "nsys-kern-sum"},
    {"gbench", ImportFormat::kGoogleBenchmark, "gbench-json"},
    {"csv", ImportFormat::kTimingCsv, "timing-csv"},
};

// Google Benchmark JSON is read whole; a bigger file is not a benchmark report.
constexpr size_t kMaxJsonBytes = 64 << 20;

}  // namespace

std::optional<ImportFormat> ParseImportFormat(std::string_view name) {
  for (const FormatName& f : kFormats) {
    if (f.flag == name) return f.format;
  }
  return std::nullopt;
}

const char* ImportFormatName(ImportFormat format) {
  for (const FormatName& f : kFormats) {
    if (f.format == format) return f.name;
  }
  return "?";
}

ImportFormat DetectImportFormat(std::string_view head) {
  size_t first = head.find_first_not_of(" \t\r\n\xef\xbb\xbf");
  if (first != head.npos && head[first] == '{') return ImportFormat::kGoogleBenchmark;
  bool ncu_marks = false;
  for (size_t at = 0; at < head.size();) {
    size_t end = head.find('\n', at);
    std::string_view line = head.substr(at, end == head.npos ? head.npos : end - at);
    if (line.rfind("\"ID\",", 0) == 0 || line.rfind("ID,", 0) == 0) {
      return ImportFormat::kNcuDetails;  // ImportNcu tells the two pages apart
    }
    if (line.rfind("==PROF==", 0) == 0 || line.rfind("==ERROR==", 0) == 0) ncu_marks = true;
    if (line.find("Instances") != line.npos && line.find("Name") != line.npos) {
      return ImportFormat::kNsysKernSum;
    }
    if (line.rfind("kernel,", 0) == 0 && line.find("time_") != line.npos) {
      return ImportFormat::kTimingCsv;
    }
    if (end == head.npos) break;
    at = end + 1;
  }
  return ncu_marks ? ImportFormat::kNcuDetails : ImportFormat::kAuto;
}

Result<std::vector<KernelProfile>> ImportProfileFile(const std::string& path, ImportFormat format,
                                                     ImportOptions opt) {
  size_t size = 0;
  {
    // Refuses a FIFO or a device before anything reads it.
    AV_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegularFile(path, Links::kFollow, &size));
  }
  AV_ASSIGN_OR_RETURN(opt.sha256, Sha256File(path));
  if (opt.shown.empty()) opt.shown = path;
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError(path + ": cannot open");
  if (format == ImportFormat::kAuto) {
    std::string head(1 << 20, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    format = DetectImportFormat(head);
    if (format == ImportFormat::kAuto) {
      return InvalidInput(path +
                          ": not a profiler export attnverify knows (ncu --csv, nsys "
                          "stats kern_sum CSV, Google Benchmark JSON, kernel,shape,time_ns "
                          "CSV); name it with --format");
    }
    in.clear();
    in.seekg(0);
  }
  Result<std::vector<KernelProfile>> kernels = std::vector<KernelProfile>{};
  switch (format) {
    case ImportFormat::kNcuDetails:
      kernels = ImportNcu(in, opt);
      break;
    case ImportFormat::kNcuRaw:
      kernels = ImportNcuRaw(in, opt);
      break;
    case ImportFormat::kNsysKernSum:
      kernels = ImportNsysKernSum(in, opt);
      break;
    case ImportFormat::kTimingCsv:
      kernels = ImportTimingCsv(in, opt);
      break;
    case ImportFormat::kGoogleBenchmark: {
      if (size > kMaxJsonBytes)
        return InvalidInput(path + ": larger than 64 MiB for a JSON report");
      std::string text(size, '\0');
      in.read(text.data(), static_cast<std::streamsize>(size));
      text.resize(static_cast<size_t>(in.gcount()));
      kernels = ImportGoogleBenchmark(text, opt);
      break;
    }
    case ImportFormat::kAuto:
      break;
  }
  if (!kernels.ok()) return kernels;
  if (kernels->empty()) return InvalidInput(path + ": no kernel launch in the file");
  return kernels;
}

}  // namespace av::profile
