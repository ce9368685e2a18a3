# Grouped FP8 GEMMs: contiguous and masked layouts (attnverify fixture).
from .gemm import get_best_configs, get_block_n_padding
from .runtime import compile_and_tune


def grouped_gemm_contiguous(lhs, rhs, out, m_indices) -> None:
    m, k = lhs[0].shape
    num_groups, n, k_ = rhs[0].shape
    num_sms, block_m, block_n, num_stages, smem_size = get_best_configs(m, n, k, 1, device_sms())
    runtime = compile_and_tune(
        name='grouped_gemm',
        keys={'N': n, 'K': k, 'BLOCK_M': block_m, 'BLOCK_N': block_n,
              'BLOCK_N_PADDING': get_block_n_padding(block_n),
              'NUM_GROUPS': num_groups,
              'NUM_STAGES': num_stages, 'GEMM_TYPE': 'GroupedContiguous'})
    runtime(lhs, rhs, out, m_indices, m, num_sms, smem_size)


def grouped_gemm_masked(lhs, rhs, out, masked_m, expected_m) -> None:
    num_groups, m, k = lhs[0].shape
    num_groups_, n, k_ = rhs[0].shape
    num_sms, block_m, block_n, num_stages, smem_size = get_best_configs(expected_m, n, k, num_groups, device_sms())
    runtime = compile_and_tune(
        name='grouped_gemm',
        keys={'N': n, 'K': k, 'BLOCK_M': block_m, 'BLOCK_N': block_n,
              'BLOCK_N_PADDING': get_block_n_padding(block_n),
              'NUM_GROUPS': num_groups,
              'NUM_STAGES': num_stages, 'GEMM_TYPE': 'GroupedMasked'})
    runtime(lhs, rhs, out, masked_m, m, num_sms, smem_size)
