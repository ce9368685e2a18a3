# Synthetic fixture: handlers around the import of a fast path.
from .slow import attention_slow

try:
    from .fast import attention_fast
except:
    attention_fast = None

try:
    from .fused import fused_norm
except ImportError:
    fused_norm = None

try:
    from .graphs import capture
except Exception as e:
    raise RuntimeError("graph capture unavailable") from e

try:
    from .tuned import configs
except Exception as e:
    print(f"tuned configs unavailable: {e}")
    configs = {}
