# Synthetic fixture: handlers around the import of a fast path.
from .slow import attention_slow

attention_fast = None
