#include "profile/ncu_run.h"

#include "core/file.h"

namespace av::profile {

const std::string& NcuMetrics() {
  static const std::string kMetrics =
      "gpu__time_duration.sum,"
      "sm__throughput.avg.pct_of_peak_sustained_elapsed,"
      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
      "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
      "sm__warps_active.avg.pct_of_peak_sustained_active,"
      "sm__maximum_warps_per_active_cycle_pct,"
      "launch__registers_per_thread,"
      "launch__shared_mem_per_block_static,"
      "launch__shared_mem_per_block_dynamic,"
      "launch__shared_mem_per_block_driver,"
      "launch__occupancy_limit_registers,"
      "launch__occupancy_limit_shared_mem,"
      "launch__occupancy_limit_warps,"
      "launch__occupancy_limit_blocks,"
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
      "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,"
      "dram__bytes_read.sum,"
      "dram__bytes_write.sum";
  return kMetrics;
}

std::vector<std::string> NcuArgv(const std::string& ncu, const ProfileConfig& cfg) {
  std::vector<std::string> argv = {ncu,
                                   "--csv",
                                   "--page",
                                   "raw",
                                   "--print-units",
                                   "base",
                                   "--metrics",
                                   NcuMetrics(),
                                   "--launch-count",
                                   std::to_string(cfg.launch_count)};
  if (!cfg.kernel_regex.empty()) {
    argv.push_back("--kernel-name");
    argv.push_back("regex:" + cfg.kernel_regex);
  }
  argv.insert(argv.end(), cfg.bench.begin(), cfg.bench.end());
  return argv;
}

Result<NcuRunResult> RunNcu(ProcessRunner& runner, const ProfileConfig& cfg,
                            const std::string& build_dir, const std::string& logs_dir,
                            const std::string& label) {
  if (cfg.bench.empty()) {
    return InvalidInput(
        "[profile] bench is not set: name the benchmark's argv, e.g. "
        "bench = [\"python\", \"bench_flash_mla.py\"]");
  }
  std::string ncu = FindExecutable("ncu");
  if (ncu.empty()) {
    return NotFound("ncu is not on PATH: `profile --run` needs Nsight Compute on a GPU host");
  }
  NcuRunResult out;
  out.argv = NcuArgv(ncu, cfg);
  ProcessRequest req;
  req.argv = out.argv;
  req.cwd = build_dir;
  req.timeout_ms = 3'600'000;  // ncu replays each kernel per metric pass: slow by design
  req.max_output_bytes = 512u << 20;
  AV_ASSIGN_OR_RETURN(ProcessResult r, runner.Run(req));
  out.log_path = logs_dir + "/ncu-" + label + ".csv";
  AV_RETURN_IF_ERROR(WriteFileAtomically(out.log_path, r.stdout_text));
  if (!r.ok()) {
    return InvalidInput("ncu for the " + label + " build " + r.Describe() + ": " +
                        r.stderr_text.substr(0, 600) + " (its output: " + out.log_path + ")");
  }
  if (r.stdout_truncated) return InvalidInput(out.log_path + ": ncu printed more than 512 MiB");
  return out;
}

}  // namespace av::profile
