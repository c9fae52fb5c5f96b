def occupancyMaxActiveBlocksPerMultiprocessor(func, threads, shared):
    """The H200's limits for a 16-register kernel: 32 blocks, 64 warps, 228 KiB a SM."""
    warps = -(-threads // 32)
    return min(32, 64 // warps, (228 * 1024) // (shared + 1024))
