"""Makes the C heap keep the memory a training step frees, for the next step to reuse.

A training step allocates and frees the same activations and gradients every
batch. By default glibc's malloc serves blocks above a threshold (128 KiB,
raised to the largest block freed so far, at most 32 MiB) with mmap, and
returns the heap's free top to the OS once it exceeds twice that threshold:
with the manual's MNIST trial at batch 32 on CPU that gave back ~13 MiB
after every batch, and touching it again cost ~3,400 page faults per batch,
10-15 % of the step's CPU time (bench/training/README.md). A worker
process is dedicated to its trial, so it keeps that memory instead: blocks up
to 32 MiB come from the heap, which is never trimmed. Larger blocks are
still mapped and unmapped, so big one-off buffers (a data set being loaded)
go back to the OS when freed.
"""

import ctypes

_M_TRIM_THRESHOLD = -1  # from <malloc.h>
_M_MMAP_THRESHOLD = -3
_GLIBC_MAX_MMAP_THRESHOLD = 32 << 20  # on 64-bit; mallopt refuses more
_NEVER = -1  # M_TRIM_THRESHOLD -1: never trim (mallopt(3))


def keep_freed_memory() -> bool:
    """Tunes glibc's malloc for this process as described above; False where the C library has no mallopt."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None:
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, _GLIBC_MAX_MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, _NEVER))
