# FP8 GEMM: picks tiles and pipeline stages and JIT-compiles the kernel (attnverify fixture).
import math
from typing import Tuple

from .runtime import ceil_div, compile_and_tune

template = """
using namespace gemmlib;

constexpr auto N = {N}, K = {K};
constexpr auto BLOCK_M = {BLOCK_M};
constexpr auto BLOCK_N = {BLOCK_N};
constexpr auto kNumStages = {NUM_STAGES};

using gemm_t = Gemm<N, K, BLOCK_M, BLOCK_N, 128, 1, kNumStages, GemmType::Normal>;
gemm_t::run(out, rhs_scales, nullptr, m, a_desc, b_desc, sa_desc, d_desc, stream, num_sms, smem_size);
"""


def get_smem_size(num_stages: int, k: int, block_m: int, block_n: int, block_k: int = 128) -> int:
    smem_d = block_m * block_n * 2
    smem_a_per_stage = block_m * block_k
    smem_scales_a_per_stage = block_m * 4
    smem_b_per_stage = block_n * block_k
    smem_scales_b = ceil_div(k, block_k) * 4
    smem_barrier = num_stages * 8 * 2

    smem_size = 0
    smem_size += smem_d
    smem_size += num_stages * (smem_a_per_stage + smem_scales_a_per_stage + smem_b_per_stage)
    smem_size += smem_scales_b + smem_barrier
    return smem_size


def get_best_configs(m: int, n: int, k: int, num_groups: int, num_sms: int) -> Tuple[int, int, int, int, int]:
    block_ms = (64, 128) if m <= 64 else (128, 256)
    best_block_m, best_block_n = pick_blocks(m, n, num_groups, num_sms, block_ms)

    # Always pick the deepest pipeline that fits
    best_num_stages, best_smem_size, sm90_capacity = None, None, 232448
    stage_candidates = (8, 7, 6, 5, 4)
    if 128 % best_block_n != 0 and 128 // math.gcd(128, best_block_n) <= 4:
        # unrolling both the stages and the scale iterations makes the code too large
        stage_candidates = (4, )
    for num_stages in stage_candidates:
        best_smem_size = get_smem_size(num_stages, k, best_block_m, best_block_n)
        if best_smem_size <= sm90_capacity:
            best_num_stages = num_stages
            break
    assert best_num_stages is not None

    # Fewer SMs when the waves allow it: less L2 traffic and a higher clock
    num_waves = waves(m, n, best_block_m, best_block_n, num_groups, num_sms)
    num_min_sms = ceil_div(ceil_div(m, best_block_m) * ceil_div(n, best_block_n) * num_groups, num_waves)
    num_min_sms = ceil_div(max(num_min_sms, num_sms - 8), 2) * 2
    assert num_min_sms <= num_sms
    return num_min_sms, best_block_m, best_block_n, best_num_stages, best_smem_size


def gemm_fp8_fp8_bf16_nt(lhs, rhs, out) -> None:
    m, k = lhs[0].shape
    n, k_ = rhs[0].shape
    num_sms, block_m, block_n, num_stages, smem_size = get_best_configs(m, n, k, 1, device_sms())
    runtime = compile_and_tune(
        name='gemm_fp8_fp8_bf16_nt',
        keys={'N': n, 'K': k, 'BLOCK_M': block_m, 'BLOCK_N': block_n, 'NUM_STAGES': num_stages},
        template=template)
    runtime(lhs, rhs, out, m, num_sms, smem_size)
