"""The frozen app's entry point: the same command line as the installed ``recall``.

Started with ``--sound-decoder`` alone, the app is instead the sound decoder's child process
(``recall/host/sound_decoder.py``): the frozen app has no ``python -m`` to start it with.
"""

from __future__ import annotations

import sys

from recall.host.sound_decoder import DECODER_ARGUMENT

if __name__ == "__main__":
    if sys.argv[1:] == [DECODER_ARGUMENT]:
        from recall.host.sound_decoder import main as decoder_main

        sys.exit(decoder_main())
    from recall.cli.main import main

    sys.exit(main())
