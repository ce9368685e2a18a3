# Tile and pipeline-stage selection of the FP8 GEMM (attnverify fixture).
import math

from .runtime import ceil_div, get_smem_config


def get_best_configs(m: int, n: int, k: int, num_groups: int, num_sms: int):
    if num_groups == 1:
        block_ms = (64 if m <= 64 else 128, )
    else:
        block_ms = (64, 128, 256)
    block_ns = tuple(range(16, 129, 8))

    waves = lambda bm, bn: ceil_div(ceil_div(m, bm) * ceil_div(n, bn) * num_groups, num_sms)

    # Choose the tile with the fewest waves, then the fullest last wave
    best_block_m, best_block_n = None, None
    for block_m in block_ms:
        for block_n in block_ns:
            if best_block_m is None or waves(block_m, block_n) < waves(best_block_m, best_block_n):
                best_block_m, best_block_n = block_m, block_n

    # The deepest pipeline that fits in shared memory
    best_num_stages, best_smem_config, sm90_capacity = None, None, 232448
    stage_candidates = tuple(filter(lambda s: s <= k // 128, (8, 7, 6, 5, 4, 3)))
    if 128 % best_block_n != 0 and 128 // math.gcd(128, best_block_n) <= 4:
        # unrolling both the stages and the scale iterations makes the code too large
        stage_candidates = (4, 3)
    for num_stages in stage_candidates:
        best_smem_config = get_smem_config(num_stages, k, best_block_m, best_block_n)
        if best_smem_config[0] <= sm90_capacity:
            best_num_stages = num_stages
            break
    assert best_num_stages is not None
    return best_block_m, best_block_n, best_num_stages, best_smem_config
