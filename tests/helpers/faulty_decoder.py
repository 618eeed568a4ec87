"""A decoder child that fails on purpose, run as ``python tests/helpers/faulty_decoder.py MODE``.

It speaks the decoder's wire format (``recall.host.sound_decoder``) and fails at the first file:
``abort`` sends one chunk of samples then calls ``os.abort()``; ``garbage`` sends bytes that
are no message; ``silent`` says nothing more and never ends; ``exit`` exits with status 3.
The tests run it in place of the real decoder to prove the player survives each.
"""

from __future__ import annotations

import json
import os
import sys
import threading

from recall.host.sound_decoder import DATA, FRAME_BYTES, HEADER, READY


def main(mode: str) -> int:
    replies = sys.stdout.buffer
    replies.write(HEADER.pack(READY, 0, 0))
    replies.flush()
    request = json.loads(sys.stdin.buffer.readline())
    if mode == "abort":
        chunk = bytes(256 * FRAME_BYTES)
        replies.write(HEADER.pack(DATA, request["job"], len(chunk)) + chunk)
        replies.flush()
        os.abort()
    if mode == "garbage":
        replies.write(b"free(): invalid pointer\n" * 4)
        replies.flush()
    if mode == "exit":
        return 3
    threading.Event().wait()  # "silent", and after garbage: never ends by itself
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
