"""The libraries' Python signatures as recorded from their repositories (git history of
flash_mla/flash_mla_interface.py, deep_gemm's bindings in csrc/apis/gemm.hpp and
deep_gemm/jit_kernels/*.py, flash_attn/flash_attn_interface.py). The stand-ins are built
from these lists, and test_signatures checks them with inspect.signature."""

FLASH_MLA = {
    "2025-02 (first release)": {
        "get_mla_metadata": ["cache_seqlens", "num_heads_per_head_k", "num_heads_k"],
        "flash_mla_with_kvcache": ["q", "k_cache", "block_table", "cache_seqlens", "head_dim_v",
                                   "tile_scheduler_metadata", "num_splits", "softmax_scale=None",
                                   "causal=False"],
    },
    "2025-09 (sparse and fp8 kernels)": {
        "get_mla_metadata": ["cache_seqlens", "num_q_tokens_per_head_k", "num_heads_k",
                             "num_heads_q=None", "is_fp8_kvcache=False", "topk=None"],
        "flash_mla_with_kvcache": ["q", "k_cache", "block_table", "cache_seqlens", "head_dim_v",
                                   "tile_scheduler_metadata", "num_splits", "softmax_scale=None",
                                   "causal=False", "is_fp8_kvcache=False", "indices=None"],
        "flash_mla_sparse_fwd": ["q", "kv", "indices", "sm_scale", "d_v=512"],
    },
    "1.0 (2026-01)": {
        "get_mla_metadata": ["*args", "**kwargs"],
        "flash_mla_with_kvcache": ["q", "k_cache", "block_table", "cache_seqlens", "head_dim_v",
                                   "tile_scheduler_metadata", "num_splits=None",
                                   "softmax_scale=None", "causal=False", "is_fp8_kvcache=False",
                                   "indices=None", "attn_sink=None", "extra_k_cache=None",
                                   "extra_indices_in_kvcache=None", "topk_length=None",
                                   "extra_topk_length=None"],
        "flash_mla_sparse_fwd": ["q", "kv", "indices", "sm_scale", "d_v=512", "attn_sink=None",
                                 "topk_length=None"],
    },
}

DEEP_GEMM = {
    "2025-06 (jit_kernels, before the C++ API)": {
        "gemm_fp8_fp8_bf16_nt": ["lhs", "rhs", "out"],
        "m_grouped_gemm_fp8_fp8_bf16_nt_contiguous": ["lhs", "rhs", "out", "m_indices"],
        "m_grouped_gemm_fp8_fp8_bf16_nt_masked": ["lhs", "rhs", "out", "masked_m", "expected_m"],
    },
    "2026 (fp8_fp4 bindings, fp8_* aliases)": {
        "fp8_gemm_nt": ["a", "b", "d", "c=None", "recipe=None", "recipe_a=None", "recipe_b=None",
                        "compiled_dims='nk'", "disable_ue8m0_cast=False"],
        "m_grouped_fp8_gemm_nt_contiguous": [
            "a", "b", "d", "grouped_layout", "recipe=None", "recipe_a=None", "recipe_b=None",
            "compiled_dims='nk'", "disable_ue8m0_cast=False", "use_psum_layout=False",
            "ensure_zero_padding=True", "expected_m_for_psum_layout=None"],
        "m_grouped_fp8_gemm_nt_masked": ["a", "b", "d", "masked_m", "expected_m", "recipe=None",
                                         "recipe_a=None", "recipe_b=None", "compiled_dims='nk'",
                                         "disable_ue8m0_cast=False"],
    },
}

_FA_COMMON = ["dropout_p=0.0", "softmax_scale=None", "causal=False", "window_size=(-1, -1)"]
FLASH_ATTN = {
    "2.3.0": {
        "flash_attn_func": ["q", "k", "v"] + _FA_COMMON + ["return_attn_probs=False"],
        "flash_attn_varlen_func": ["q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q",
                                   "max_seqlen_k"] + _FA_COMMON + ["return_attn_probs=False"],
        "flash_attn_with_kvcache": ["q", "k_cache", "v_cache", "k=None", "v=None",
                                    "rotary_cos=None", "rotary_sin=None", "cache_seqlens=None",
                                    "softmax_scale=None", "causal=False", "window_size=(-1, -1)",
                                    "rotary_interleaved=True", "num_splits=0"],
    },
    "2.6.0": {
        "flash_attn_func": ["q", "k", "v"] + _FA_COMMON + [
            "softcap=0.0", "alibi_slopes=None", "deterministic=False", "return_attn_probs=False"],
        "flash_attn_varlen_func": ["q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q",
                                   "max_seqlen_k"] + _FA_COMMON + [
            "softcap=0.0", "alibi_slopes=None", "deterministic=False", "return_attn_probs=False",
            "block_table=None"],
        "flash_attn_with_kvcache": ["q", "k_cache", "v_cache", "k=None", "v=None",
                                    "rotary_cos=None", "rotary_sin=None", "cache_seqlens=None",
                                    "cache_batch_idx=None", "block_table=None",
                                    "softmax_scale=None", "causal=False", "window_size=(-1, -1)",
                                    "softcap=0.0", "rotary_interleaved=True", "alibi_slopes=None",
                                    "num_splits=0", "return_softmax_lse=False"],
    },
    "2.8.3": {
        "flash_attn_func": ["q", "k", "v"] + _FA_COMMON + [
            "softcap=0.0", "alibi_slopes=None", "deterministic=False", "return_attn_probs=False"],
        "flash_attn_varlen_func": ["q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q",
                                   "max_seqlen_k"] + _FA_COMMON + [
            "softcap=0.0", "alibi_slopes=None", "deterministic=False", "return_attn_probs=False",
            "block_table=None"],
        "flash_attn_with_kvcache": ["q", "k_cache", "v_cache", "k=None", "v=None",
                                    "rotary_cos=None", "rotary_sin=None", "cache_seqlens=None",
                                    "cache_batch_idx=None", "cache_leftpad=None",
                                    "block_table=None", "softmax_scale=None", "causal=False",
                                    "window_size=(-1, -1)", "softcap=0.0",
                                    "rotary_interleaved=True", "alibi_slopes=None",
                                    "num_splits=0", "return_softmax_lse=False"],
    },
}

TORCH = {
    "2.1+": {"scaled_dot_product_attention": ["query", "key", "value", "attn_mask=None",
                                              "dropout_p=0.0", "is_causal=False", "scale=None"]},
}
