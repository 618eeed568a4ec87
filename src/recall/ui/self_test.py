"""``recall --self-test``: open the real window, study one card by keyboard, check it was stored.

It proves that a build of Recall works end to end on the machine it runs on: Qt finds its
platform plugin, the bundled deck, icon and style sheet load, the sound decoder's process
starts (in the frozen app: the app itself, as ``--sound-decoder``) and decodes the bundled
sound, a review reaches the database, and the window quits cleanly. CI runs it against the
frozen app (``scripts/smoke_test.py``); ``scripts/startup_time.py`` times its "first card on
screen" line.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QEvent, QEventLoop, Qt, QTimer, QUrl
from PySide6.QtGui import QGuiApplication, QImage, QKeyEvent, QTextDocument
from PySide6.QtWidgets import QApplication, QWidget

from recall import __version__
from recall.collection import review_log
from recall.core import wording
from recall.core.errors import RecallError
from recall.host import audio, paths
from recall.storage import Database
from recall.ui.appearance import STYLE_SHEET
from recall.ui.application import application, open_database, show_window
from recall.ui.main_menus import library_versions
from recall.ui.main_window import MainWindow
from recall.ui.prompts import Prompts
from recall.ui.review.card_text_view import CardTextView
from recall.ui.review.view import Phase
from recall.ui.single_instance import SingleInstance, server_name

CHECK_SOUND = "check.wav"  # 0.3 s of tone: decoding it proves the decoder's process runs
STEP_SECONDS = 20.0  # generous: a cold start of a frozen app on a loaded CI machine
FIRST_CARD = "first card on screen"  # scripts/startup_time.py waits for this line


class SelfTestError(Exception):
    """A check of the self-test did not hold; the message says which."""


class _NoDialogs(Prompts):
    """Answers every question No and keeps every notice: a self-test never waits for a person.

    What the window would have shown becomes the reason the self-test failed.
    """

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[str] = []

    def confirm(self, title: str, question: str) -> bool:
        self.shown.append(f"{title}: {question}")
        return False

    def retry(self, title: str, problem: str) -> bool:
        self.shown.append(f"{title}: {problem}")
        return False

    def tell(self, title: str, text: str, warning: bool = False) -> None:
        self.shown.append(f"{title}: {text}")


def choose_platform(environ: MutableMapping[str, str], system: str = sys.platform) -> None:
    """Draw offscreen on a Linux machine without a display, unless QT_QPA_PLATFORM says."""
    if (
        system.startswith("linux")
        and not environ.get("QT_QPA_PLATFORM")
        and not environ.get("DISPLAY")
        and not environ.get("WAYLAND_DISPLAY")
    ):
        environ["QT_QPA_PLATFORM"] = "offscreen"


def run_self_test(data_dir: Path | None) -> int:
    """Run the self-test in ``data_dir`` (a new temporary folder if None); returns 0 or 1."""
    choose_platform(os.environ)
    try:
        if data_dir is not None:
            _self_test(data_dir)
        else:
            with tempfile.TemporaryDirectory(prefix="recall-self-test-") as folder:
                _self_test(Path(folder))
    except (SelfTestError, RecallError) as error:
        print(f"self-test failed: {error}", file=sys.stderr)
        return 1
    print("self-test: passed", flush=True)
    return 0


def _say(text: str) -> None:
    print(f"self-test: {text}", flush=True)


def _self_test(data_dir: Path) -> None:
    app = application()
    _say(f"Recall {__version__} on the {QGuiApplication.platformName()} platform")
    versions = library_versions()
    _say(", ".join(f"{name} {version}" for name, version in versions.items()))
    if "unknown" in versions.values():
        raise SelfTestError(f"a library's version is unknown: {versions}")
    _say(f"resources from {paths.resource(STYLE_SHEET)}")
    if app.windowIcon().isNull():
        raise SelfTestError("the application has no icon")
    _decode_check_sound()
    _typeset_check_formula()
    instance = SingleInstance(server_name(data_dir))
    if instance.notify_running():
        raise SelfTestError(f"a Recall is already running on {data_dir}")
    instance.listen()
    prompts = _NoDialogs()
    database = open_database(data_dir, prompts)
    if database is None:
        raise SelfTestError("; ".join(prompts.shown) or f"cannot open the database in {data_dir}")
    try:
        before = _stored_reviews(database)
        with _errors_fail_the_test(prompts) as check:
            window = show_window(database, data_dir, prompts)
            try:
                _study_one_card(app, window, database, before, check)
                status = _quit(app, window)
                check()
            finally:
                window.tasks.wait()
    finally:
        database.close()
    if status != 0:
        raise SelfTestError(f"the event loop ended with status {status}")
    reopened = Database(paths.database_path(data_dir))
    try:
        stored = _stored_reviews(reopened) - before
    finally:
        reopened.close()
    if stored != 1:
        raise SelfTestError(f"after quitting, the database holds {stored} new reviews, not 1")
    _say(f"quit cleanly; the review is in {paths.database_path(data_dir)}")


def _decode_check_sound() -> None:
    """Decode the bundled sound through the player and its decoder process, into a recording."""
    problems: list[str] = []
    output = audio.RecordingOutput()
    player = audio.Player(problems.append, problems.append, lambda: output)
    with resources.as_file(paths.resource(CHECK_SOUND)) as path:
        player.play([path])
        finished = player.idle.wait(STEP_SECONDS) and output.done.wait(STEP_SECONDS)
        player.close()
    if problems or not finished:
        raise SelfTestError(f"the bundled sound did not play: {problems or 'no end'}")
    samples = output.samples()
    seconds = len(samples) / audio.CHANNELS / audio.SAMPLE_RATE
    if seconds < 0.25 or not any(samples):
        raise SelfTestError(f"the bundled sound decoded to {seconds:.2f} s of silence")
    _say(f"sound: the decoder process decoded {CHECK_SOUND} ({seconds:.2f} s)")


def _typeset_check_formula() -> None:
    """Typeset a formula and draw it as the card view does: the typesetter's fonts and Qt's
    SVG renderer are in the app."""
    view = CardTextView(Path(tempfile.gettempdir()))
    view.set_card_html(r"\(x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}\)")
    loaded = view.loadResource(
        QTextDocument.ResourceType.ImageResource.value, QUrl("recall-math:0")
    )
    image = loaded if isinstance(loaded, QImage) else QImage()
    pixels = ((x, y) for x in range(image.width()) for y in range(image.height()))
    if image.width() <= 1 or not any(image.pixelColor(x, y).alpha() for x, y in pixels):
        raise SelfTestError("a formula was not typeset and drawn")
    _say(f"formula: typeset and drawn ({image.width()} x {image.height()} pixels)")
    view.deleteLater()


def _stored_reviews(database: Database) -> int:
    return review_log.export_reviews(database, io.StringIO())


def _study_one_card(
    app: QApplication,
    window: MainWindow,
    database: Database,
    before: int,
    check: Callable[[], None],
) -> None:
    def wait_until(condition: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + STEP_SECONDS
        while not condition():
            check()
            if time.monotonic() > deadline:
                raise SelfTestError(f"{what} within {STEP_SECONDS:g} s")
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.002)
        check()

    handle = window.windowHandle()
    wait_until(lambda: handle is not None and handle.isExposed(), "the window was not shown")
    if window.windowIcon().isNull():
        raise SelfTestError("the window has no icon")
    deck = window.deck_list.selected_key()
    if deck is None:
        raise SelfTestError("the deck list shows no deck")
    shown = wording.count(window.deck_list.model.rowCount(), "deck")
    _say(f"the deck list shows {shown}; {deck!r} is selected")

    _press(window, Qt.Key.Key_Return, "\r")

    def first_card_shown() -> bool:
        review = window.review
        return review is not None and window.pages.currentWidget() is review and bool(review.shown)

    wait_until(first_card_shown, f"Enter on the deck list showed no card of {deck!r}")
    _say(FIRST_CARD)
    review = window.review
    assert review is not None
    _press(window, Qt.Key.Key_1, "1")
    if review.phase is Phase.QUESTION:  # a "select all" card or a basic card: Space submits
        _press(window, Qt.Key.Key_Space, " ")
    wait_until(lambda: review.phase is Phase.FEEDBACK, "the card showed no feedback")
    answer = review.answer
    assert answer is not None
    _press(window, Qt.Key.Key_Space, " ")
    wait_until(
        lambda: _stored_reviews(database) == before + 1, "Space after the answer stored no review"
    )
    rating = answer.proposed.name.title()
    _say(f"one card studied by keyboard and stored, rated {rating} as proposed")


def _press(window: MainWindow, key: Qt.Key, text: str) -> None:
    """Press and release ``key`` on the widget with the keyboard focus, as a keyboard would."""
    target: QWidget | None = QApplication.focusWidget() or window.focusWidget()
    if target is None:
        raise SelfTestError("no widget has the keyboard focus")
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        QApplication.sendEvent(target, QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text))


def _quit(app: QApplication, window: MainWindow) -> int:
    """Quit through File > Quit (what Ctrl+Q does) and run the loop until the app ends."""
    QTimer.singleShot(0, window.menus.quit_action.trigger)
    # A window that does not close leaves the loop running: end it, and say so.
    QTimer.singleShot(int(STEP_SECONDS * 1000), lambda: app.exit(2))
    status = app.exec()
    if window.isVisible():
        raise SelfTestError("File > Quit did not close the window")
    return status


@contextmanager
def _errors_fail_the_test(prompts: _NoDialogs) -> Iterator[Callable[[], None]]:
    """Collect errors raised inside Qt's event handlers and what the window would have shown.

    The yielded check raises the first.
    """
    errors: list[str] = []

    def record(
        kind: type[BaseException], error: BaseException, trace: TracebackType | None
    ) -> None:
        errors.append("".join(traceback.format_exception(kind, error, trace)))

    def check() -> None:
        if errors:
            raise SelfTestError(f"an error inside the window:\n{errors[0]}")
        if prompts.shown:
            raise SelfTestError(f"the window would have asked or told: {prompts.shown[0]}")

    previous = sys.excepthook
    sys.excepthook = record
    try:
        yield check
    finally:
        sys.excepthook = previous
