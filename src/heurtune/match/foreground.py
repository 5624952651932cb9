"""Long compiled calls in the foreground: said when they compile, stopped by Ctrl-C.

numba compiles a search the first time it is used on a machine (later runs load
it from numba's cache), which takes from a few seconds to a minute with nothing
to show for it; and a compiled loop has no Python frame in which Ctrl-C or
SIGTERM could be raised, so a long search holds them until it returns.

* :func:`compiling` says, on the ``heurtune`` logger, what is being compiled
  when a step takes longer than a moment, and how long it took (the command line
  prints the ``heurtune`` logger's lines on stderr; a library user sees them by
  configuring :mod:`logging`).
* :func:`interruptible` runs a call in a helper thread (compiled code releases
  the GIL) while the main thread waits for it, so Ctrl-C and SIGTERM interrupt
  the main thread at once; the abandoned call finishes (or dies with the
  process) in the background.
* :func:`signals_held` is the opposite, for a few milliseconds of work that
  must not be cut in two (starting a process): Ctrl-C and SIGTERM take effect
  at its end.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger("heurtune")

NOTICE_AFTER = 1.5  # seconds: a warm start (loaded from the cache) takes less


@contextmanager
def compiling(what: str, after: float = NOTICE_AFTER) -> Iterator[None]:
    """Around a step that compiles ``what`` on first use: if it takes longer than
    ``after`` seconds, one line says so while it runs and one how long it took."""
    start = time.monotonic()
    said = threading.Event()

    def say() -> None:
        said.set()
        log.info("compiling %s (first run on this machine only; cached afterwards) ...", what)

    timer = threading.Timer(after, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if said.is_set():
            log.info("compiled %s in %.0f s", what, time.monotonic() - start)


def interruptible(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``, run so that Ctrl-C and SIGTERM stop the wait at once
    (in the main thread; elsewhere, where no signal arrives, a plain call)."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="heurtune-compiled-call", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(0.05)  # a signal handler runs between two waits
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


@contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM that arrive inside the block take effect at its end
    (their handlers run then, the first one's first; in the main thread, where
    Python runs signal handlers, and for the signals that have a Python handler:
    others stay as they are)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[int, FrameType | None]] = []
    saved: dict[signal.Signals, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(sig)
        if callable(handler):
            saved[sig] = handler
            signal.signal(sig, lambda signum, frame: held.append((signum, frame)))
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
        if held:
            signum, frame = held[0]
            saved[signal.Signals(signum)](signum, frame)
