#!/usr/bin/env python3
# Writes ncu_base_EXAMPLE.csv / ncu_head_EXAMPLE.csv: EXAMPLE profiler exports for the demo,
# in the layout of `ncu --csv` (details page, 2025.x), with MADE-UP timings (no GPU ran this).
# Registers and static smem are ptxas -v figures of the two builds (sm_90a, nvcc 13.0).
#   python3 make_examples.py base 132 > ncu_base_EXAMPLE.csv   (132: the combine kernel's smem)
#   python3 make_examples.py head 132 > ncu_head_EXAMPLE.csv
import sys
# side, decode (us per launch), combine (us), regs, static smem, bank ld/st, achieved occ
sides = {
  "base": dict(dec=[24.83, 24.91, 24.78, 24.86, 24.95], comb=[6.62, 6.58, 6.60, 6.65, 6.61],
               regs=127, smem=195072, ld=18432, st=4096, occ=12.41, theo=12.5, bl_reg=2, bl_smem=1),
  "head": dict(dec=[24.12, 24.20, 24.08, 24.15, 24.31], comb=[6.59, 6.63, 6.57, 6.60, 6.62],
               regs=136, smem=203264, ld=18432, st=4096, occ=12.39, theo=12.5, bl_reg=1, bl_smem=1),
}
COMBINE_SMEM = int(sys.argv[2])
side = sys.argv[1]
s = sides[side]
hdr = ["ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"]
out = []
out.append("# EXAMPLE ONLY - NOT A MEASUREMENT. Made-up timings for attnverify's demo, written in the")
out.append("# layout of `ncu --csv` (details page, 20 columns, Nsight Compute 2025.x) as the real")
out.append("# samples show it; no GPU ran this. See examples/splitk_decode/README.md.")
out.append("==PROF== Connected to process 4242 (python3)")
out.append("==PROF== Disconnected from process 4242")
out.append(",".join('"%s"' % h for h in hdr))
lid = 0
def row(kname, block, grid, section, metric, unit, value):
    f = [str(lid), "4242", "python3", "127.0.0.1", kname, "1", "7", block, grid, "0", "9.0", section, metric, unit, value]
    return ",".join('"%s"' % x for x in f) + ","
for i in range(5):
    for kind in ("decode", "combine"):
        if kind == "decode":
            k = "flash_mla::splitk_mla_decode_kernel(flash_mla::DecodeParams)"
            block, grid = "(256, 1, 1)", "(1, 16, 4)"
            dur = s["dec"][i]; rd = 75.66; wr = 16.78
            regs, smem, occ, theo = s["regs"], s["smem"], s["occ"], s["theo"]
            limits = [("Block Limit Registers", s["bl_reg"]), ("Block Limit Shared Mem", s["bl_smem"]), ("Block Limit Warps", 8), ("Block Limit SM", 32)]
            ld, st = s["ld"], s["st"]
        else:
            k = "flash_mla::splitk_mla_combine_kernel(flash_mla::DecodeParams)"
            block, grid = "(128, 1, 1)", "(16, 128, 1)"
            dur = s["comb"][i]; rd = 16.84; wr = 2.10
            regs, smem, occ, theo = 32, COMBINE_SMEM, 78.2, 100
            limits = [("Block Limit Registers", 16), ("Block Limit Shared Mem", 32), ("Block Limit Warps", 16), ("Block Limit SM", 32)]
            ld, st = 0, 0
        bw = (rd + wr) * 1e6 / (dur * 1e3)  # GB/s
        sec = "GPU Speed Of Light Throughput"
        out.append(row(k, block, grid, sec, "Duration", "us", "%.2f" % dur))
        out.append(row(k, block, grid, sec, "DRAM Throughput", "%", "%.2f" % (bw / 4800 * 100)))
        out.append(row(k, block, grid, sec, "Memory Throughput", "%", "%.2f" % (bw / 4800 * 100 + 4.1)))
        out.append(row(k, block, grid, sec, "Compute (SM) Throughput", "%", "%.2f" % (31.7 if kind == "decode" else 12.3)))
        out.append(row(k, block, grid, "SpeedOfLight", "", "", "").rstrip(",") + ',"SOLBottleneck","OPT","Memory is more heavily utilized than Compute: look at the Memory Workload Analysis section, ""DRAM"" and L2.","",""')
        sec = "Launch Statistics"
        out.append(row(k, block, grid, sec, "Registers Per Thread", "register/thread", str(regs)))
        out.append(row(k, block, grid, sec, "Static Shared Memory Per Block", "byte/block", str(smem)))
        out.append(row(k, block, grid, sec, "Dynamic Shared Memory Per Block", "byte/block", "0"))
        out.append(row(k, block, grid, sec, "Driver Shared Memory Per Block", "byte/block", "1024"))
        sec = "Occupancy"
        for name, v in limits:
            out.append(row(k, block, grid, sec, name, "block", str(v)))
        out.append(row(k, block, grid, sec, "Theoretical Occupancy", "%", "%.2f" % theo))
        out.append(row(k, block, grid, sec, "Achieved Occupancy", "%", "%.2f" % occ))
        sec = "Command line profiler metrics"
        out.append(row(k, block, grid, sec, "dram__bytes_read.sum", "Mbyte", "%.2f" % rd))
        out.append(row(k, block, grid, sec, "dram__bytes_write.sum", "Mbyte", "%.2f" % wr))
        out.append(row(k, block, grid, sec, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "", "{:,}".format(ld)))
        out.append(row(k, block, grid, sec, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "", "{:,}".format(st)))
        lid += 1
print("\n".join(out))
