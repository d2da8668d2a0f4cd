#!/usr/bin/env python3
"""Evicts files from the OS page cache (posix_fadvise DONTNEED), for cold runs."""
import os
import sys

for path in sys.argv[1:]:
    if os.path.exists(path):
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
