"""Child process: Anki desktop started on a profile, until its deck list is shown.

``python -m benchmarks.start_anki BASE_FOLDER`` starts Anki's own desktop app (the ``aqt``
package) on the profile ``bench`` of ``BASE_FOLDER`` (see ``measure_desktop.prepare_profile``).
When the deck browser has rendered and its web view has finished loading the page, it prints
``painted <peak RSS of this process in kB> <summed PSS of the process tree in kB>`` and
exits at once. Anki's web engine runs in helper processes, hence the tree's PSS.
"""

from __future__ import annotations

import os
import sys

from benchmarks.proc import peak_rss_kb, tree_pss_kb


def main() -> None:
    base = sys.argv[1]
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")  # refused as root otherwise
    import aqt
    from aqt import gui_hooks
    from aqt.qt import QTimer

    def report() -> None:
        print(f"painted {peak_rss_kb()} {tree_pss_kb(os.getpid())}", flush=True)
        os._exit(0)

    def rendered(browser: object) -> None:
        web = aqt.mw.web if aqt.mw is not None else None
        if web is None:
            report()
            return
        web.loadFinished.connect(lambda _ok: QTimer.singleShot(0, report))

    gui_hooks.deck_browser_did_render.append(rendered)
    aqt._run(["anki", "-b", base, "-p", "bench"])


if __name__ == "__main__":
    main()
