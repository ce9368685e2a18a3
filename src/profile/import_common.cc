// The metric table and helpers shared by the ncu readers.
#include <map>
#include <utility>

#include "profile/import.h"
#include "profile/units.h"

namespace av::profile {
namespace {

struct MetricRow {
  std::string_view metric;
  const char* figure;
};

// Details-page names (2019 and 2025 layouts) and raw metric names for each figure.
constexpr MetricRow kMetrics[] = {
    {"Duration", fig::kDuration},
    {"gpu__time_duration.sum", fig::kDuration},
    {"gpu__time_duration", fig::kDuration},
    {"Compute (SM) Throughput", fig::kSmThroughput},
    {"Compute (SM) [%]", fig::kSmThroughput},
    {"SM [%]", fig::kSmThroughput},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", fig::kSmThroughput},
    {"Memory Throughput", fig::kMemThroughput},
    {"Memory [%]", fig::kMemThroughput},
    {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", fig::kMemThroughput},
    {"DRAM Throughput", fig::kDramThroughput},
    {"SOL FB", fig::kDramThroughput},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", fig::kDramThroughput},
    {"Achieved Occupancy", fig::kAchievedOcc},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", fig::kAchievedOcc},
    {"Theoretical Occupancy", fig::kTheoreticalOcc},
    {"sm__maximum_warps_per_active_cycle_pct", fig::kTheoreticalOcc},
    {"Registers Per Thread", fig::kRegisters},
    {"launch__registers_per_thread", fig::kRegisters},
    {"Static Shared Memory Per Block", fig::kSmemStatic},
    {"launch__shared_mem_per_block_static", fig::kSmemStatic},
    {"Dynamic Shared Memory Per Block", fig::kSmemDynamic},
    {"launch__shared_mem_per_block_dynamic", fig::kSmemDynamic},
    {"Driver Shared Memory Per Block", fig::kSmemDriver},
    {"launch__shared_mem_per_block_driver", fig::kSmemDriver},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", fig::kBankLd},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", fig::kBankSt},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", fig::kWavefronts},
    {"dram__bytes_read.sum", fig::kDramRead},
    {"dram__bytes_write.sum", fig::kDramWrite},
    {"dram__bytes.sum", fig::kDramBytes},
    {"Block Limit Registers", fig::kLimitRegisters},
    {"launch__occupancy_limit_registers", fig::kLimitRegisters},
    {"Block Limit Shared Mem", fig::kLimitSmem},
    {"launch__occupancy_limit_shared_mem", fig::kLimitSmem},
    {"Block Limit Warps", fig::kLimitWarps},
    {"launch__occupancy_limit_warps", fig::kLimitWarps},
    {"Block Limit SM", fig::kLimitSm},
    {"launch__occupancy_limit_blocks", fig::kLimitSm},
};

// "(1;2;3)" -> sum or mean of the parts; nullopt when a part is not a number.
std::optional<double> InstanceValue(std::string_view raw, bool sum) {
  if (raw.size() < 2 || raw.front() != '(' || raw.back() != ')') return std::nullopt;
  raw = raw.substr(1, raw.size() - 2);
  double total = 0;
  size_t n = 0;
  while (true) {
    size_t semi = raw.find(';');
    std::optional<double> v = ParseProfilerNumber(raw.substr(0, semi));
    if (!v) return std::nullopt;
    total += *v;
    ++n;
    if (semi == raw.npos) break;
    raw.remove_prefix(semi + 1);
  }
  return sum ? total : total / static_cast<double>(n);
}

// A negative value, or an instance value "(5;-3)" with a negative part (its sum can be
// positive): not a time any profiler measured.
bool HasNegativePart(std::string_view raw, double value) {
  if (value < 0) return true;
  if (raw.size() < 2 || raw.front() != '(' || raw.back() != ')') return false;
  raw = raw.substr(1, raw.size() - 2);
  while (true) {
    size_t semi = raw.find(';');
    std::optional<double> v = ParseProfilerNumber(raw.substr(0, semi));
    if (v && *v < 0) return true;
    if (semi == raw.npos) return false;
    raw.remove_prefix(semi + 1);
  }
}

}  // namespace

const char* FigureForMetric(std::string_view metric_name) {
  for (const MetricRow& m : kMetrics) {
    if (m.metric == metric_name) return m.figure;
  }
  return nullptr;
}

Result<bool> SetFigure(Launch* launch, const char* name, std::string_view metric_name,
                       const std::string& raw, const std::string& raw_unit) {
  if (launch->figures.count(name)) return true;
  std::optional<double> v = ParseProfilerNumber(raw);
  if (!v) {
    bool sum = metric_name.size() > 4 && metric_name.substr(metric_name.size() - 4) == ".sum";
    v = InstanceValue(raw, sum);
  }
  if (!v) return false;
  if (std::string_view(name) == fig::kDuration) {
    if (HasNegativePart(raw, *v)) {
      return InvalidInput(std::string(metric_name) + " is negative: \"" + raw.substr(0, 40) +
                          "\" " + raw_unit.substr(0, 40));
    }
    // The raw page without its units row: gpu__time_duration's base unit is ns.
    const bool raw_metric = metric_name.rfind("gpu__time_duration", 0) == 0;
    AV_ASSIGN_OR_RETURN(double ns, TimeInNs(*v, raw_unit.empty() && raw_metric ? "ns" : raw_unit,
                                            metric_name));
    launch->figures[name] = Figure{ns, "ns", raw, raw_unit};
    return true;
  }
  UnitValue u = NormaliseUnit(*v, raw_unit);
  launch->figures[name] = Figure{u.value, u.unit, raw, raw_unit};
  return true;
}

void DeriveLimiter(Launch* launch) {
  const std::pair<const char*, const char*> limits[] = {
      {fig::kLimitRegisters, "registers"},
      {fig::kLimitSmem, "shared_mem"},
      {fig::kLimitWarps, "warps"},
      {fig::kLimitSm, "sm"},
  };
  double best = 0;
  for (const auto& [figure, limiter] : limits) {
    const Figure* f = launch->Find(figure);
    if (f && (launch->occupancy_limiter.empty() || f->value < best)) {
      best = f->value;
      launch->occupancy_limiter = limiter;
    }
  }
}

std::vector<KernelProfile> GroupByKernel(
    const std::vector<std::pair<std::string, Launch>>& launches, const KernelProfile& proto) {
  std::vector<KernelProfile> out;
  std::map<std::string, size_t> index;
  for (const auto& [name, launch] : launches) {
    KernelName k = NormaliseKernelName(name);
    auto [it, fresh] = index.emplace(k.key, out.size());
    if (fresh) {
      out.push_back(proto);
      out.back().name = std::move(k);
    }
    out[it->second].launches.push_back(launch);
  }
  return out;
}

int FindColumn(const std::vector<std::string>& header, std::string_view name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace av::profile
