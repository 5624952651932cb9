"""Engines in other processes, in any language: the client side of docs/engine-protocol.md.

An engine file with a ``[process]`` table names a command; heurtune starts it,
asks for its identity and its options (the ``uci`` handshake), sets the
options a configuration gives, and asks for a move at each turn with the
moves played so far. heurtune stays the referee: its kernel checks every move.

Nothing an engine does can hang or crash a match: every read has a deadline,
and every fault (an illegal or malformed move, garbage, silence past the
deadline, a crash) raises :class:`EngineFault`, which the match layer turns
into a lost game with the reason in its record. A faulty process is killed
and started again for the next game. An engine that cannot be started at
all is a :class:`~heurtune.errors.HeurtuneError` (one line, exit code 2).
"""

from __future__ import annotations

import atexit
import multiprocessing.util
import os
import re
import selectors
import shutil
import subprocess
import sys
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import CategoricalParam, FloatParam, IntParam, Param, ParamSpace, Value
from heurtune.engine.search import SearchResult
from heurtune.errors import HeurtuneError

PROTOCOL_DOC = "docs/engine-protocol.md"
DEFAULT_TIMEOUT_MS = 5000.0
DEFAULT_START_TIMEOUT_MS = 10000.0
MAX_LINE = 1 << 16  # a longer line is garbage
# set to a file name: every line exchanged with an engine is appended to it
# (``> `` heurtune's, ``< `` the engine's, after the process id), and the
# engine's standard error (otherwise discarded): for debugging
LOG_VARIABLE = "HEURTUNE_PROTOCOL_LOG"
_PROCESS_KEYS = {"command", "cwd", "timeout_ms", "start_timeout_ms"}
_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")


class EngineFault(Exception):
    """An external engine failed during a game; ``reason`` goes into the record."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ProcessSpec:
    """How to start an external engine: the command, the folder it runs in
    (relative paths in the command are relative to it: the engine file's
    folder), and the deadlines of a move (past its movetime) and of the start."""

    command: tuple[str, ...]
    cwd: str = "."
    timeout_ms: float = DEFAULT_TIMEOUT_MS
    start_timeout_ms: float = DEFAULT_START_TIMEOUT_MS

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base_dir: str | os.PathLike[str] = ".",
                  source: str = "[process]") -> ProcessSpec:
        unknown = set(data) - _PROCESS_KEYS
        if unknown:
            raise HeurtuneError(f"{source}: unknown keys {sorted(unknown)} "
                                f"(known: {', '.join(sorted(_PROCESS_KEYS))})")
        command = data.get("command")
        if isinstance(command, str):
            command = command.split()
        if (not isinstance(command, (list, tuple)) or not command
                or not all(isinstance(c, str) and c for c in command)):
            raise HeurtuneError(f"{source}: command must be a non-empty list of strings, "
                                f"got {command!r}")
        cwd = data.get("cwd", ".")
        if not isinstance(cwd, str):
            raise HeurtuneError(f"{source}: cwd must be a string, got {cwd!r}")
        folder = Path(base_dir, cwd).resolve()
        out = {}
        for key, default, low in (("timeout_ms", DEFAULT_TIMEOUT_MS, 1.0),
                                  ("start_timeout_ms", DEFAULT_START_TIMEOUT_MS, 10.0)):
            value = data.get(key, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not low <= value <= 3_600_000:
                raise HeurtuneError(f"{source}: {key} must be a number of milliseconds in "
                                    f"[{low:g}, 3600000], got {value!r}")
            out[key] = float(value)
        return cls(tuple(command), str(folder), **out)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"command": list(self.command), "cwd": self.cwd}
        if self.timeout_ms != DEFAULT_TIMEOUT_MS:
            out["timeout_ms"] = self.timeout_ms
        if self.start_timeout_ms != DEFAULT_START_TIMEOUT_MS:
            out["start_timeout_ms"] = self.start_timeout_ms
        return out

    def argv(self) -> list[str]:
        """The command to run: a first word that is a path (``./engine``,
        ``bin/engine``) is taken from :attr:`cwd`; a bare name from ``PATH``."""
        first = self.command[0]
        if os.sep in first or (os.altsep and os.altsep in first):
            first = str(Path(self.cwd, first))
        else:
            first = shutil.which(first) or first
        return [first, *self.command[1:]]

    @property
    def label(self) -> str:
        return " ".join(self.command)


@dataclass(frozen=True)
class EngineInfo:
    """What an engine says about itself in the handshake."""

    name: str
    author: str = ""
    game: str = ""
    options: tuple[Param, ...] = ()

    def space(self) -> ParamSpace:
        return ParamSpace(self.name, self.options)


# -- reading an option line ----------------------------------------------------------
def _number(text: str, integer: bool) -> float | int:
    value = float(text)
    if integer:
        if not value.is_integer():
            raise ValueError(f"{text!r} is not an integer")
        return int(value)
    return value


def parse_option(line: str) -> Param:
    """The parameter an ``option name ... type ...`` line declares (a ValueError
    says what is wrong with it)."""
    words = line.split()
    fields: dict[str, str] = {}
    choices: list[str] = []
    i = 1
    while i < len(words):
        word = words[i]
        if word in ("name", "type", "default", "min", "max", "var"):
            if i + 1 >= len(words):
                raise ValueError(f"{word} without a value")
            if word == "var":
                choices.append(words[i + 1])
            else:
                fields[word] = words[i + 1]
            i += 2
        else:
            raise ValueError(f"unexpected word {word!r}")
    name, kind = fields.get("name"), fields.get("type")
    if name is None or not _NAME.match(name):
        raise ValueError("a one-word name (letters, digits, _ - .) is required")
    if "default" not in fields:
        raise ValueError(f"option {name} has no default")
    default = fields["default"]
    if kind in ("float", "int", "spin"):
        integer = kind != "float"
        if "min" not in fields or "max" not in fields:
            raise ValueError(f"option {name} needs min and max")
        low, high = _number(fields["min"], integer), _number(fields["max"], integer)
        value = _number(default, integer)
        try:
            if integer:
                return IntParam(name, int(low), int(high), int(value))
            return FloatParam(name, float(low), float(high), float(value))
        except HeurtuneError as exc:
            raise ValueError(str(exc)) from None
    if kind in ("bool", "check"):
        if default not in ("true", "false"):
            raise ValueError(f"option {name}: default must be true or false")
        return CategoricalParam(name, (False, True), default == "true")
    if kind in ("choice", "combo"):
        if default not in choices:
            raise ValueError(f"option {name}: default {default!r} is not one of its vars")
        return CategoricalParam(name, tuple(choices), default)
    raise ValueError(f"option {name}: unknown type {kind!r} (float, int, bool, choice)")


def option_value(value: Value) -> str:
    """An option's value as ``setoption`` sends it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


# -- the process -----------------------------------------------------------------------
class EngineProcess:
    """One running engine: lines out, lines in, every read with a deadline."""

    def __init__(self, spec: ProcessSpec, label: str = "") -> None:
        self.spec = spec
        self.label = label or spec.label
        log = os.environ.get(LOG_VARIABLE) or None
        try:
            # the engine's standard error goes to the protocol log when there is one
            errors = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
        except OSError:
            errors, log = subprocess.DEVNULL, None
        try:
            self.proc = subprocess.Popen(
                spec.argv(), cwd=spec.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=errors, bufsize=0, start_new_session=True)
        except OSError as exc:
            raise HeurtuneError(f"engine {spec.label!r} cannot be started in {spec.cwd}: "
                                f"{exc.strerror or exc}") from None
        finally:
            if not isinstance(errors, int):
                errors.close()  # the child holds its own copy
        assert self.proc.stdout is not None and self.proc.stdin is not None
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        self._buffer = b""
        self._closed = False
        self._log = log
        _LIVE.add(self)

    def _record(self, mark: str, line: str) -> None:
        if self._log is not None:
            try:
                with open(self._log, "a", encoding="utf-8") as log:
                    log.write(f"{self.proc.pid} {mark} {line}\n")
            except OSError:
                self._log = None  # an unwritable log must not stop the games

    @property
    def alive(self) -> bool:
        return not self._closed and self.proc.poll() is None

    def exit_reason(self) -> str:
        code = self.proc.poll()
        return f"exit code {code}" if code is not None else "closed its output"

    def send(self, line: str) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
            self._record(">", line)
        except (BrokenPipeError, OSError, ValueError):
            self._wait_briefly()
            raise EngineFault(f"{self.label} crashed ({self.exit_reason()})") from None

    def _wait_briefly(self) -> None:
        try:
            self.proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass

    def read_line(self, deadline: float) -> str:
        """The next line (without its end), waiting until ``deadline`` (a
        ``time.monotonic`` time) at most."""
        while True:
            cut = self._buffer.find(b"\n")
            if cut >= 0:
                raw, self._buffer = self._buffer[:cut], self._buffer[cut + 1:]
                line = raw.decode("utf-8", "replace").rstrip("\r")
                self._record("<", line)
                return line
            if len(self._buffer) > MAX_LINE:
                raise EngineFault(f"{self.label} sent garbage: a line over {MAX_LINE} bytes")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            if not self._selector.select(left):
                continue
            try:
                assert self.proc.stdout is not None
                chunk = os.read(self.proc.stdout.fileno(), 65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self._wait_briefly()
                raise EngineFault(f"{self.label} crashed ({self.exit_reason()})")
            self._buffer += chunk

    def close(self) -> None:
        """Ask the engine to quit; kill it if it does not within half a second."""
        if self._closed:
            return
        self._closed = True
        _LIVE.discard(self)
        try:
            if self.proc.poll() is None:
                try:
                    self.send("quit")
                except EngineFault:
                    pass
                try:
                    self.proc.wait(timeout=0.5)
                except subprocess.TimeoutExpired:
                    self.kill()
        finally:
            self._selector.close()
            for pipe in (self.proc.stdin, self.proc.stdout):
                try:
                    if pipe is not None:
                        pipe.close()
                except OSError:
                    pass

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.kill()
            self.proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass


_LIVE: weakref.WeakSet[EngineProcess] = weakref.WeakSet()


def _close_all() -> None:
    for proc in list(_LIVE):
        proc.kill()


# at exit, engines still running are killed: in the main process (atexit), and in a
# match's worker processes, which leave through multiprocessing's own exit hooks
atexit.register(_close_all)
multiprocessing.util.Finalize(None, _close_all, exitpriority=10)


def handshake(proc: EngineProcess, game: str = "") -> EngineInfo:
    """``uci`` → ``id``/``option`` lines → ``uciok``; a HeurtuneError when the engine
    does not answer in time or declares something heurtune cannot read."""
    spec = proc.spec
    deadline = time.monotonic() + spec.start_timeout_ms / 1000.0
    where = f"engine {spec.label!r}"
    try:
        proc.send("uci")
        name, author, plays = "", "", ""
        options: list[Param] = []
        while True:
            line = proc.read_line(deadline)
            words = line.split()
            if not words:
                continue
            if words[0] == "uciok":
                break
            if words[0] == "id" and len(words) >= 3:
                text = line.split(None, 2)[2].strip()
                if words[1] == "name":
                    name = text
                elif words[1] == "author":
                    author = text
                elif words[1] == "game":
                    plays = text
            elif words[0] == "option":
                try:
                    options.append(parse_option(line))
                except ValueError as exc:
                    raise HeurtuneError(f"{where}: cannot read {line.strip()!r}: {exc} "
                                        f"(see {PROTOCOL_DOC})") from None
    except TimeoutError:
        proc.kill()
        raise HeurtuneError(f"{where} did not answer 'uci' with 'uciok' within "
                            f"{spec.start_timeout_ms:g} ms (see {PROTOCOL_DOC})") from None
    except EngineFault as fault:
        proc.kill()
        raise HeurtuneError(f"{where} failed to start: {fault.reason}") from None
    if not name:
        name = Path(spec.command[0]).stem
    if plays and game and plays != game:
        proc.close()
        raise HeurtuneError(f"{where} plays {plays}, not {game}")
    names = [p.name for p in options]
    if len(set(names)) != len(names):
        proc.close()
        raise HeurtuneError(f"{where} declares an option twice")
    return EngineInfo(name, author, plays, tuple(options))


_INFOS: dict[tuple[ProcessSpec, str], EngineInfo] = {}


def describe(spec: ProcessSpec, game: str = "") -> EngineInfo:
    """The engine's identity and options (started once per process and command)."""
    key = (spec, game)
    info = _INFOS.get(key)
    if info is None:
        proc = EngineProcess(spec)
        try:
            info = handshake(proc, game)
        finally:
            proc.close()
        _INFOS[key] = info
    return info


def process_heuristic(game: str, spec: ProcessSpec) -> Heuristic:
    """The engine's options as a heuristic (its parameter space) of ``game``."""
    info = describe(spec, game)
    return Heuristic(game, info.name, f"external engine: {spec.label}", info.space(), None,
                     sys.modules[__name__], kind="process")


@dataclass
class ProcessPlayer:
    """Plays moves by asking an external engine (see the module docstring)."""

    spec: ProcessSpec
    game: str
    options: Mapping[str, Value]
    rules: Mapping[str, int]
    label: str
    proc: EngineProcess | None = None
    info: EngineInfo | None = None

    def _start(self) -> EngineProcess:
        proc = EngineProcess(self.spec, self.label)
        self.info = handshake(proc, self.game)
        declared = {p.name for p in self.info.options}
        deadline = time.monotonic() + self.spec.start_timeout_ms / 1000.0
        for name, value in self.options.items():
            if name in declared:
                proc.send(f"setoption name {name} value {option_value(value)}")
        proc.send("isready")
        try:
            while proc.read_line(deadline).strip() != "readyok":
                pass
        except TimeoutError:
            proc.kill()
            raise EngineFault(f"{self.label} did not answer 'isready'") from None
        return proc

    def new_game(self) -> None:
        """Start (or restart) the process if needed, then ``ucinewgame``."""
        if self.proc is None or not self.proc.alive:
            if self.proc is not None:
                self.proc.close()
            self.proc = None
            try:
                self.proc = self._start()
            except HeurtuneError as exc:  # it started once (the handshake at load)
                self.proc = None
                raise EngineFault(f"{self.label} could not be restarted: {exc}") from None
        rules = " ".join(f"{k}={int(v)}" for k, v in sorted(self.rules.items()))
        self.proc.send(f"ucinewgame {rules}".rstrip())

    def choose(self, moves: Sequence[str], legal: Sequence[str], seed: int, depth: int,
               nodes: int, time_ms: float) -> tuple[str, SearchResult]:
        """Ask for a move after ``moves`` (notation); ``legal`` are the legal
        moves' notations. Returns the move's notation and the search's figures."""
        if self.proc is None or not self.proc.alive:
            if self.proc is not None:
                reason = self.proc.exit_reason()
                self.proc.close()
                self.proc = None
                raise EngineFault(f"{self.label} crashed ({reason})")
            self.new_game()
        proc = self.proc
        assert proc is not None
        position = "position startpos" + (" moves " + " ".join(moves) if moves else "")
        go = ["go"]
        if nodes > 0:
            go.append(f"nodes {nodes}")
        if time_ms > 0:
            go.append(f"movetime {time_ms:g}")
        if depth > 0:
            go.append(f"depth {depth}")
        go.append(f"seed {seed}")
        t0 = time.perf_counter()
        deadline = time.monotonic() + (time_ms + self.spec.timeout_ms) / 1000.0
        try:
            proc.send(position)
            proc.send(" ".join(go))
            reached, searched = 0, 0
            while True:
                line = proc.read_line(deadline)
                words = line.split()
                if not words:
                    continue
                if words[0] == "info":
                    reached, searched = _info(words, reached, searched)
                    continue
                if words[0] == "bestmove" and len(words) >= 2:
                    move = words[1]
                    break
                raise EngineFault(f"{self.label} sent garbage: {line.strip()[:80]!r}")
        except TimeoutError:
            self._drop()
            raise EngineFault(f"{self.label} timed out (no move in "
                              f"{time_ms + self.spec.timeout_ms:g} ms)") from None
        except EngineFault:
            self._drop()
            raise
        seconds = time.perf_counter() - t0
        if move not in legal:
            raise EngineFault(f"{self.label} played an illegal move {move[:40]!r}")
        return move, SearchResult(move=-1, value=0.0, depth=reached, nodes=searched,
                                  seconds=seconds, legal_moves=len(legal))

    def _drop(self) -> None:
        """Kill a process that can no longer be trusted to be in step."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.close()
            self.proc = None

    def close(self) -> None:
        if self.proc is not None:
            self.proc.close()
            self.proc = None


def _info(words: list[str], depth: int, nodes: int) -> tuple[int, int]:
    for key, i in (("depth", 0), ("nodes", 1)):
        if key in words:
            at = words.index(key)
            if at + 1 < len(words) and words[at + 1].isdigit():
                if i == 0:
                    depth = int(words[at + 1])
                else:
                    nodes = int(words[at + 1])
    return depth, nodes


__all__ = [
    "EngineFault",
    "EngineInfo",
    "EngineProcess",
    "ProcessPlayer",
    "ProcessSpec",
    "describe",
    "handshake",
    "option_value",
    "parse_option",
    "process_heuristic",
]
