"""quantity_guard.mcp.fdio: the one read loop of the stdio proxy and the stdio server."""
from __future__ import annotations

import os
import threading

from quantity_guard.mcp.fdio import read_chunks


def test_reads_every_byte_until_end_of_file_in_chunks_of_at_most_size():
    r, w = os.pipe()
    data = bytes(range(256)) * 40  # 10 KiB, written from another thread

    def writer():
        for k in range(0, len(data), 1000):
            os.write(w, data[k:k + 1000])
        os.close(w)

    t = threading.Thread(target=writer)
    t.start()
    try:
        chunks = list(read_chunks(r, 512))
    finally:
        t.join()
        os.close(r)
    assert b"".join(chunks) == data
    assert chunks and all(0 < len(c) <= 512 for c in chunks)


def test_a_read_error_ends_the_stream_like_end_of_file(tmp_path):
    fd = os.open(tmp_path, os.O_RDONLY)  # reading a directory raises IsADirectoryError
    try:
        assert list(read_chunks(fd)) == []
    finally:
        os.close(fd)
