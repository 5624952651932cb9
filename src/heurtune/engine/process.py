"""Engines in other processes, in any language: the client side of docs/engine-protocol.md.

An engine file with a ``[process]`` table names a command; heurtune starts it,
asks for its identity and its options (the ``uci`` handshake), sets the
options a configuration gives, and asks for a move at each turn with the
moves played so far. heurtune stays the referee: its kernel checks every move.

Two dialects share the client:

* ``uci``: the Universal Chess Interface as chess engines speak it, unchanged.
  Option names may hold spaces; ``spin``, ``check`` and ``combo`` options are
  typed, bounded parameters, ``string`` and ``button`` ones are read and left
  alone; nothing outside UCI is sent (no seed, no rule words); a clock time
  control goes as ``wtime btime winc binc [movestogo]``; ``info score cp|mate``
  is read (adjudication uses it). The default of chess.
* ``heurtune``: UCI's shape with two additions for the other games, typed
  ``float`` options and the game's rule options after ``ucinewgame``, plus a
  tie-break ``seed`` with every ``go``. The default of every other game.

Nothing an engine does can hang or crash a match: every read has a deadline,
and every fault (an illegal or malformed move, garbage, silence past the
deadline, a crash, a lost clock) raises :class:`EngineFault`, which the match
layer turns into a lost game with the reason in its record. At a deadline
heurtune first sends ``stop`` (an engine that ignores a limit, as Debian's
Toga II ignores ``go nodes``, then answers and stays in step); an engine that
does not answer that either is killed, and started again for the next game.
An engine that cannot be started at all is a
:class:`~heurtune.errors.HeurtuneError` (one line, exit code 2).
"""

from __future__ import annotations

import atexit
import concurrent.futures
import ctypes
import math
import multiprocessing.util
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import CategoricalParam, FloatParam, IntParam, Param, ParamSpace, Value
from heurtune.engine.search import SearchResult
from heurtune.errors import HeurtuneError

PROTOCOL_DOC = "docs/engine-protocol.md"
DEFAULT_TIMEOUT_MS = 5000.0
DEFAULT_START_TIMEOUT_MS = 10000.0
# after ``stop`` at a deadline: how long an engine has to answer before it is killed
STOP_GRACE_MS = 1000.0
MAX_LINE = 1 << 16  # a longer line is garbage
MATE_CP = 32000  # a mate in n plies scores MATE_CP - n centipawns (cutechess's convention)
PROTOCOLS = ("heurtune", "uci")
# set to a file name: every line exchanged with an engine is appended to it
# (``> `` heurtune's, ``< `` the engine's, after the process id), and the
# engine's standard error (otherwise discarded): for debugging
LOG_VARIABLE = "HEURTUNE_PROTOCOL_LOG"
_PROCESS_KEYS = {"command", "cwd", "timeout_ms", "start_timeout_ms", "protocol", "options"}
_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")
_UCI_WORDS = ("name", "type", "default", "min", "max", "var")


class EngineFault(Exception):
    """An external engine failed during a game; ``reason`` goes into the record.
    ``kind`` is one of ``illegal``, ``garbage``, ``timeout``, ``time``
    (a lost clock), ``crash`` (how faults are counted)."""

    def __init__(self, reason: str, kind: str = "crash") -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


def _option_value(value: Any, where: str) -> Value:
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    raise HeurtuneError(f"{where} must be a number, a string or true/false, got {value!r}")


@dataclass(frozen=True)
class ProcessSpec:
    """How to start an external engine: the command, the folder it runs in
    (relative paths in the command are relative to it: the engine file's
    folder), the deadlines of a move (past its movetime) and of the start, the
    protocol it speaks ("" : its game's), and fixed options sent at every start
    and never searched (``Hash``, ``Threads``, ``OwnBook``)."""

    command: tuple[str, ...]
    cwd: str = "."
    timeout_ms: float = DEFAULT_TIMEOUT_MS
    start_timeout_ms: float = DEFAULT_START_TIMEOUT_MS
    protocol: str = ""
    options: tuple[tuple[str, Value], ...] = ()

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
        out: dict[str, Any] = {}
        for key, default, low in (("timeout_ms", DEFAULT_TIMEOUT_MS, 1.0),
                                  ("start_timeout_ms", DEFAULT_START_TIMEOUT_MS, 10.0)):
            value = data.get(key, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not low <= value <= 3_600_000:
                raise HeurtuneError(f"{source}: {key} must be a number of milliseconds in "
                                    f"[{low:g}, 3600000], got {value!r}")
            out[key] = float(value)
        protocol = data.get("protocol", "")
        if protocol not in ("", *PROTOCOLS):
            raise HeurtuneError(f"{source}: protocol must be one of {', '.join(PROTOCOLS)}, "
                                f"got {protocol!r}")
        options = data.get("options", {})
        if not isinstance(options, Mapping):
            raise HeurtuneError(f"{source}: options must be a table of option = value")
        fixed = tuple((str(k), _option_value(v, f"{source}: options.{k}"))
                      for k, v in options.items())
        return cls(tuple(command), str(folder), protocol=protocol, options=fixed, **out)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"command": list(self.command), "cwd": self.cwd}
        if self.timeout_ms != DEFAULT_TIMEOUT_MS:
            out["timeout_ms"] = self.timeout_ms
        if self.start_timeout_ms != DEFAULT_START_TIMEOUT_MS:
            out["start_timeout_ms"] = self.start_timeout_ms
        if self.protocol:
            out["protocol"] = self.protocol
        if self.options:
            out["options"] = dict(self.options)
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

    def dialect(self, game: str) -> str:
        """The protocol spoken with it: :attr:`protocol`, else its game's
        (:func:`game_protocol`)."""
        return self.protocol or game_protocol(game)

    @property
    def label(self) -> str:
        return " ".join(self.command)


def game_protocol(game: str) -> str:
    """The protocol a game's engines speak unless their file says otherwise (its
    kernel's ``engine_protocol``: ``uci`` for chess, ``heurtune`` for the others)."""
    from heurtune.games import get_game

    return get_game(game).engine_protocol


@dataclass(frozen=True)
class OtherOption:
    """An option an engine declares that is not a parameter: a UCI ``string`` or
    ``button``, or one whose line heurtune could not read as a parameter (the
    reason says why). It is listed and left alone."""

    name: str
    kind: str
    default: str = ""
    reason: str = ""


@dataclass(frozen=True)
class EngineInfo:
    """What an engine says about itself in the handshake."""

    name: str
    author: str = ""
    game: str = ""
    options: tuple[Param, ...] = ()
    others: tuple[OtherOption, ...] = ()
    protocol: str = "heurtune"

    def space(self) -> ParamSpace:
        return ParamSpace(self.name, self.options)

    def declares(self, name: str) -> bool:
        """Whether it declares an option of this name (UCI's names are not case
        sensitive)."""
        return self.spelling(name) is not None

    def spelling(self, name: str) -> str | None:
        """The name as the engine declared it (``hash``: ``Hash``), or None."""
        wanted = name.lower()
        return next((n for n in [p.name for p in self.options] + [o.name for o in self.others]
                     if n.lower() == wanted), None)

    def check_options(self, names: Sequence[str], where: str) -> None:
        """One error line for a name among ``names`` it does not declare."""
        for name in names:
            if not self.declares(name):
                raise HeurtuneError(f"{where}: engine {self.name!r} declares no option "
                                    f"{name!r} (`heurtune list` on its engine file lists "
                                    "those it does)")


# -- reading an option line ----------------------------------------------------------
def _number(text: str, integer: bool) -> float | int:
    value = float(text)
    if integer:
        if not value.is_integer():
            raise ValueError(f"{text!r} is not an integer")
        return int(value)
    return value


def parse_option(line: str) -> Param:
    """The parameter an ``option name ... type ...`` line of heurtune's protocol
    declares (a ValueError says what is wrong with it)."""
    words = line.split()
    fields: dict[str, str] = {}
    choices: list[str] = []
    i = 1
    while i < len(words):
        word = words[i]
        if word in _UCI_WORDS:
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
    return _param(name, kind, fields, choices)


def _param(name: str, kind: str | None, fields: Mapping[str, str],
           choices: Sequence[str]) -> Param:
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


def parse_uci_option(line: str) -> Param | OtherOption:
    """The parameter a UCI ``option`` line declares, or an :class:`OtherOption`
    (``string``, ``button``, or a line that declares no parameter heurtune can
    tune: its reason says why). Names and values may hold spaces:
    ``option name Piece Activity type spin default 100 min 0 max 400``."""
    words = line.split()
    fields: dict[str, list[str]] = {}
    choices: list[list[str]] = []
    key = ""
    for word in words[1:]:
        if word in _UCI_WORDS and not (key == "name" and "type" not in fields
                                       and word != "type"):
            key = word
            if key == "var":
                choices.append([])
            else:
                fields.setdefault(key, [])
        elif key == "var":
            choices[-1].append(word)
        elif key:
            fields[key].append(word)
        else:
            raise ValueError(f"unexpected word {word!r} before 'name'")
    name = " ".join(fields.get("name", []))
    kind = " ".join(fields.get("type", []))
    if not name:
        raise ValueError("an option without a name")
    text = {k: " ".join(v) for k, v in fields.items()}
    if kind in ("string", "button"):
        return OtherOption(name, kind, text.get("default", ""))
    if kind not in ("spin", "check", "combo"):
        return OtherOption(name, kind, text.get("default", ""),
                           f"unknown type {kind!r} (spin, check, combo, string, button)")
    try:
        return _param(name, kind, text, [" ".join(c) for c in choices])
    except ValueError as exc:
        return OtherOption(name, kind, text.get("default", ""), str(exc))


def option_value(value: Value) -> str:
    """An option's value as ``setoption`` sends it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


# -- the process -----------------------------------------------------------------------
PR_SET_PDEATHSIG = 1  # prctl option, <linux/prctl.h>


def _die_with_parent() -> Callable[[], None] | None:
    """A function the engine's process runs before its command (Linux): the kernel
    sends it SIGKILL when the process that started it dies, however it dies (a
    match worker killed by SIGKILL runs no cleanup, and an engine that ignores the
    end of its input would outlive it). None elsewhere, or where libc has no prctl."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.restype = ctypes.c_int
    prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong)

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return arm


_ARM = _die_with_parent()
_SPAWNER: concurrent.futures.ThreadPoolExecutor | None = None


def _spawn(argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
    """Start an engine from one long-lived thread of this process: Linux ties the
    parent-death signal to the thread that starts a process, and a match played
    in this process runs in short-lived threads (heurtune.match.foreground), whose
    end would otherwise kill the engines they started."""
    global _SPAWNER
    if _SPAWNER is None:
        _SPAWNER = concurrent.futures.ThreadPoolExecutor(1, "heurtune-engines")

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(argv, preexec_fn=_ARM, **options)

    return _SPAWNER.submit(start).result()


class EngineProcess:
    """One running engine: lines out, lines in, every read with a deadline."""

    def __init__(self, spec: ProcessSpec, label: str = "") -> None:
        self.spec = spec
        self.label = label or spec.label
        log = os.environ.get(LOG_VARIABLE) or None
        try:
            self.proc = _spawn(
                spec.argv(), cwd=spec.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                # the engine's standard error goes to the protocol log when there is
                # one, each line after the process id (_copy_errors)
                stderr=subprocess.PIPE if log else subprocess.DEVNULL, bufsize=0,
                start_new_session=True)
        except OSError as exc:
            raise HeurtuneError(f"engine {spec.label!r} cannot be started in {spec.cwd}: "
                                f"{exc.strerror or exc}") from None
        if log and self.proc.stderr is not None:
            threading.Thread(target=_copy_errors, args=(self.proc.stderr, self.proc.pid, log),
                             name="heurtune-engine-stderr", daemon=True).start()
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

    def send(self, *lines: str) -> None:
        """Send ``lines``, in one write (a turn's ``position`` and ``go`` together)."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write("".join(line + "\n" for line in lines).encode())
            self.proc.stdin.flush()
            for line in lines:
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
                raise EngineFault(f"{self.label} sent garbage: a line over {MAX_LINE} bytes",
                                  "garbage")
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


def _copy_errors(stream: Any, pid: int, log: str) -> None:
    """Append an engine's standard error to the protocol log, each line after its
    process id and ``!`` (a thread's loop, until the engine closes it)."""
    try:
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            with open(log, "a", encoding="utf-8") as out:
                out.write(f"{pid} ! {line}\n")
    except (OSError, ValueError):
        pass  # an unwritable log, a closed pipe: the games go on
    finally:
        try:
            stream.close()
        except OSError:
            pass


_LIVE: weakref.WeakSet[EngineProcess] = weakref.WeakSet()


def _close_all() -> None:
    for proc in list(_LIVE):
        proc.kill()


# at exit, engines still running are killed: in the main process (atexit), and in a
# match's worker processes, which leave through multiprocessing's own exit hooks
atexit.register(_close_all)
multiprocessing.util.Finalize(None, _close_all, exitpriority=10)


def handshake(proc: EngineProcess, game: str = "", protocol: str = "heurtune") -> EngineInfo:
    """``uci`` → ``id``/``option`` lines → ``uciok``; a HeurtuneError when the engine
    does not answer in time or (heurtune's protocol) declares something heurtune
    cannot read."""
    spec = proc.spec
    deadline = time.monotonic() + spec.start_timeout_ms / 1000.0
    where = f"engine {spec.label!r}"
    uci = protocol == "uci"
    try:
        proc.send("uci")
        name, author, plays = "", "", ""
        options: list[Param] = []
        others: list[OtherOption] = []
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
                elif words[1] == "game" and not uci:
                    plays = text
            elif words[0] == "option":
                try:
                    if uci:
                        found = parse_uci_option(line)
                        if isinstance(found, OtherOption):
                            others.append(found)
                        else:
                            options.append(found)
                    else:
                        options.append(parse_option(line))
                except ValueError as exc:
                    hint = ""
                    if not uci and _looks_uci(line):
                        hint = "; it looks like a UCI engine: set protocol = \"uci\" in [process]"
                    raise HeurtuneError(f"{where}: cannot read {line.strip()!r}: {exc} "
                                        f"(see {PROTOCOL_DOC}){hint}") from None
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
    names = [p.name for p in options] + [o.name for o in others]
    if len(set(names)) != len(names):
        proc.close()
        raise HeurtuneError(f"{where} declares an option twice")
    return EngineInfo(name, author, plays, tuple(options), tuple(others), protocol)


def _looks_uci(line: str) -> bool:
    try:
        found = parse_uci_option(line)
    except ValueError:
        return False
    return not isinstance(found, OtherOption) or not found.reason


_INFOS: dict[tuple[ProcessSpec, str], EngineInfo] = {}
# engines started to read their options, kept for the first player of the same
# command (one process per engine and worker, not one more to read its options)
_IDLE: dict[tuple[ProcessSpec, str], EngineProcess] = {}


def describe(spec: ProcessSpec, game: str = "") -> EngineInfo:
    """The engine's identity and options (read once per process and command; the
    process that told them waits for the first :class:`ProcessPlayer` of it)."""
    key = (spec, game)
    info = _INFOS.get(key)
    if info is None:
        proc = EngineProcess(spec)
        try:
            info = handshake(proc, game, spec.dialect(game) if game else
                             (spec.protocol or "heurtune"))
        except BaseException:
            proc.close()
            raise
        _INFOS[key] = info
        _IDLE[key] = proc
    return info


def idle_engine(spec: ProcessSpec, game: str) -> EngineProcess | None:
    """The engine :func:`describe` started for this command, if it still waits
    (its handshake done), taken: it is the caller's now."""
    proc = _IDLE.pop((spec, game), None)
    if proc is not None and not proc.alive:
        proc.close()
        return None
    return proc


def release_idle() -> None:
    """Stop the engines that were started only to read their options (this process
    will play no game: its match workers start their own)."""
    while _IDLE:
        _IDLE.popitem()[1].close()


def process_heuristic(game: str, spec: ProcessSpec) -> Heuristic:
    """The engine's options as a heuristic (its parameter space) of ``game``: every
    option it declares as a parameter, but those its file fixes (``[process]
    options``)."""
    info = describe(spec, game)
    fixed = {name for name, _ in spec.options}
    space = ParamSpace(info.name, tuple(p for p in info.options if p.name not in fixed))
    return Heuristic(game, info.name, f"external engine: {spec.label}", space, None,
                     sys.modules[__name__], kind="process")


# -- clocks ------------------------------------------------------------------------------
_TC = re.compile(r"^(?:(\d+)/)?(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$")


@dataclass(frozen=True)
class TimeControl:
    """A clock: ``base_ms`` for the game (or for each ``moves`` moves) plus
    ``increment_ms`` after every move, written as cutechess writes it:
    ``[moves/]seconds[+increment]`` (``10+0.1``, ``40/60``, ``60``)."""

    base_ms: float
    increment_ms: float = 0.0
    moves: int = 0

    @classmethod
    def parse(cls, text: str, where: str = "tc") -> TimeControl:
        found = _TC.match(text.strip()) if isinstance(text, str) else None
        if found is None:
            raise HeurtuneError(f"{where} must be [moves/]seconds[+increment], such as "
                                f"\"10+0.1\" or \"40/60\", got {text!r}")
        moves, base, inc = found.groups()
        tc = cls(float(base) * 1000.0, float(inc or 0) * 1000.0, int(moves or 0))
        if tc.base_ms <= 0:
            raise HeurtuneError(f"{where}: the time must be positive, got {text!r}")
        return tc

    def text(self) -> str:
        base = f"{self.base_ms / 1000:g}"
        out = f"{self.moves}/{base}" if self.moves else base
        return out + (f"+{self.increment_ms / 1000:g}" if self.increment_ms else "")


@dataclass
class Clock:
    """Both sides' clocks in one game, in milliseconds (side 0 moves first):
    what ``go wtime btime winc binc movestogo`` says, kept by the referee."""

    controls: tuple[TimeControl | None, TimeControl | None]
    left: list[float] = field(default_factory=list)
    moved: list[int] = field(default_factory=lambda: [0, 0])

    def __post_init__(self) -> None:
        if not self.left:
            self.left = [tc.base_ms if tc is not None else 0.0 for tc in self.controls]

    def moves_to_go(self, side: int) -> int:
        tc = self.controls[side]
        if tc is None or not tc.moves:
            return 0
        return tc.moves - self.moved[side] % tc.moves

    def go_words(self, side: int) -> str:
        """``wtime .. btime .. winc .. binc .. [movestogo ..]`` for ``side``'s move
        (a side without a clock is given the mover's)."""
        own = self.controls[side]
        assert own is not None
        left = [self.left[s] if self.controls[s] is not None else self.left[side]
                for s in (0, 1)]
        inc = [(self.controls[s] or own).increment_ms for s in (0, 1)]
        words = (f"wtime {max(0, round(left[0]))} btime {max(0, round(left[1]))} "
                 f"winc {round(inc[0])} binc {round(inc[1])}")
        togo = self.moves_to_go(side)
        return words + (f" movestogo {togo}" if togo else "")

    def spend(self, side: int, ms: float) -> None:
        """``side`` moved after ``ms``: its clock runs down (never below 0: a
        move inside the margin is not a loss), then gains the increment, and a
        new period's time after the last move of a period."""
        tc = self.controls[side]
        if tc is None:
            return
        self.moved[side] += 1
        self.left[side] = max(0.0, self.left[side] - ms) + tc.increment_ms
        if tc.moves and self.moved[side] % tc.moves == 0:
            self.left[side] += tc.base_ms


# -- the player --------------------------------------------------------------------------
@dataclass(frozen=True)
class Limits:
    """What one ``go`` asks for: nodes, depth (0: none) and a fixed time per move
    (ms, 0: none), or a clock (then ``clock``/``side`` and the margin past the
    time left within which a move still counts)."""

    nodes: int = 0
    depth: int = 0
    time_ms: float = 0.0
    clock: Clock | None = None
    side: int = 0
    margin_ms: float = 0.0


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
    # options the game's rules require (chess960: UCI_Chess960), set at every start
    rule_options: Mapping[str, Value] = field(default_factory=dict)

    @property
    def protocol(self) -> str:
        return self.spec.dialect(self.game)

    def _start(self) -> EngineProcess:
        proc = idle_engine(self.spec, self.game)
        if proc is not None:  # started to read its options: the handshake is done
            proc.label = self.label
            self.info = _INFOS[(self.spec, self.game)]
        else:
            proc = EngineProcess(self.spec, self.label)
            try:
                self.info = handshake(proc, self.game, self.protocol)
            except BaseException:
                proc.kill()
                proc.close()
                raise
        deadline = time.monotonic() + self.spec.start_timeout_ms / 1000.0
        try:
            # the fixed options and those the rules need, as the engine spells them
            # (checked when the configuration was built: EngineConfig)
            self.info.check_options([*dict(self.spec.options), *self.rule_options], self.label)
            sent: dict[str, Value] = {self.info.spelling(k) or k: v for k, v in
                                      [*self.spec.options, *self.rule_options.items()]}
            # the parameters, where they differ from the engine's own defaults (an engine
            # left at its defaults is sent nothing it did not ask for)
            defaults = {p.name: p.default for p in self.info.options}
            for name, value in self.options.items():
                if name in defaults and value != defaults[name]:
                    sent[name] = value
            for name, value in sent.items():
                proc.send(f"setoption name {name} value {option_value(value)}")
            self._ready(proc, deadline)
        except BaseException:
            proc.kill()
            proc.close()
            raise
        return proc

    def _ready(self, proc: EngineProcess, deadline: float) -> None:
        proc.send("isready")
        try:
            while proc.read_line(deadline).strip() != "readyok":
                pass
        except TimeoutError:
            proc.kill()
            raise EngineFault(f"{self.label} did not answer 'isready'", "timeout") from None

    def new_game(self) -> None:
        """Start (or restart) the process if needed, then ``ucinewgame`` (UCI: and
        ``isready``, so that the engine has cleared its tables before the clock
        runs)."""
        if self.proc is None or not self.proc.alive:
            if self.proc is not None:
                self.proc.close()
            self.proc = None
            try:
                self.proc = self._start()
            except HeurtuneError as exc:  # it started once (the handshake at load)
                self.proc = None
                raise EngineFault(f"{self.label} could not be restarted: {exc}") from None
        if self.protocol == "uci":
            self.proc.send("ucinewgame")
            self._ready(self.proc, time.monotonic() + self.spec.start_timeout_ms / 1000.0)
            return
        rules = " ".join(f"{k}={int(v)}" for k, v in sorted(self.rules.items()))
        self.proc.send(f"ucinewgame {rules}".rstrip())

    def choose(self, moves: Sequence[str], limits: Limits, seed: int = 0,
               start: str = "") -> tuple[str, SearchResult, int | None]:
        """Ask for a move after ``moves`` (notation) from ``start`` (a position's
        text; "" : the game's start). Returns the move's notation (unchecked: the
        referee checks it), the search's figures and the engine's last score in
        centipawns for the side to move (None where it sent none)."""
        if self.proc is None or not self.proc.alive:
            if self.proc is not None:
                reason = self.proc.exit_reason()
                self.proc.close()
                self.proc = None
                raise EngineFault(f"{self.label} crashed ({reason})")
            self.new_game()
        proc = self.proc
        assert proc is not None
        where = f"fen {start}" if start else "startpos"
        position = f"position {where}" + (" moves " + " ".join(moves) if moves else "")
        go = ["go"]
        if limits.clock is not None:
            go.append(limits.clock.go_words(limits.side))
            allowed = limits.clock.left[limits.side] + limits.margin_ms
        else:
            if limits.nodes > 0:
                go.append(f"nodes {limits.nodes}")
            if limits.time_ms > 0:
                go.append(f"movetime {limits.time_ms:g}")
            if limits.depth > 0:
                go.append(f"depth {limits.depth}")
            allowed = limits.time_ms + self.spec.timeout_ms
        uci = self.protocol == "uci"
        if not uci:
            go.append(f"seed {seed}")
        t0 = time.perf_counter()
        deadline = time.monotonic() + allowed / 1000.0
        stopped = False
        try:
            proc.send(position, " ".join(go))
            # the info lines that matter are the last ones: read when the move comes
            # (an engine sends dozens a move; parsing each would cost more than the
            # rest of the referee's work)
            scored, counted = "", ""
            while True:
                try:
                    line = proc.read_line(deadline)
                except TimeoutError:
                    if stopped:
                        raise
                    # past the deadline: ask for the move (an engine that ignores a
                    # limit answers now and stays in step), then give up on it
                    stopped = True
                    proc.send("stop")
                    deadline = time.monotonic() + min(STOP_GRACE_MS, self.spec.timeout_ms) / 1000
                    continue
                if line.startswith("info"):
                    if line.startswith("info string"):  # free text, whatever it says
                        continue
                    if " score " in line:
                        scored = line
                    if " nodes " in line or " depth " in line:
                        counted = line
                    continue
                words = line.split()
                if words and words[0] == "bestmove" and len(words) >= 2:
                    move = words[1]
                    break
                if not words or (uci and words[0] != "bestmove"):
                    continue  # UCI: an engine's unknown lines are ignored, as the GUI's are
                raise EngineFault(f"{self.label} sent garbage: {line.strip()[:80]!r}", "garbage")
            reached, searched, score = _info(scored.split(), 0, 0, None)
            reached, searched, _ = _info(counted.split(), reached, searched, None)
        except TimeoutError:
            self._drop()
            raise self._late(limits, allowed, " ".join(go), answered=False) from None
        except EngineFault:
            self._drop()
            raise
        if stopped:
            raise self._late(limits, allowed, " ".join(go), answered=True)
        seconds = time.perf_counter() - t0
        return move, SearchResult(move=-1, value=0.0 if score is None else float(score),
                                  depth=reached, nodes=searched, seconds=seconds,
                                  legal_moves=0), score

    def _late(self, limits: Limits, allowed: float, asked: str,
              answered: bool) -> EngineFault:
        """The fault of an engine that did not move by its deadline after ``asked``
        (its ``go`` line; ``answered``: it did after ``stop``, and stays in step)."""
        after = "; it answered 'stop'" if answered else "; killed"
        if limits.clock is not None:
            return EngineFault(f"{self.label} lost on time (no move within {allowed:g} ms: "
                               f"its clock plus a margin of {limits.margin_ms:g} ms){after}",
                               "time")
        asked = asked.split(" seed ")[0]  # (heurtune's protocol: the tie-break seed)
        return EngineFault(f"{self.label} timed out (no move in {allowed:g} ms after "
                           f"'{asked}'){after}", "timeout")

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


def _info(words: list[str], depth: int, nodes: int,
          score: int | None) -> tuple[int, int, int | None]:
    """The figures of an ``info`` line over the last ones: depth, nodes, and the
    score in centipawns (``score mate N``: :data:`MATE_CP` less the plies)."""
    for at, word in enumerate(words[:-1]):
        value = words[at + 1]
        if word == "depth" and value.isdigit():
            depth = int(value)
        elif word == "nodes" and value.isdigit():
            nodes = int(value)
        elif word == "score" and at + 2 < len(words):
            kind, number = value, words[at + 2]
            try:
                n = int(number)
            except ValueError:
                continue
            if kind == "cp":
                score = n
            elif kind == "mate":
                plies = 2 * abs(n) - (1 if n > 0 else 0)
                score = MATE_CP - plies if n > 0 else -(MATE_CP - plies)
    return depth, nodes, score


__all__ = [
    "MATE_CP",
    "PROTOCOLS",
    "Clock",
    "EngineFault",
    "EngineInfo",
    "EngineProcess",
    "Limits",
    "OtherOption",
    "ProcessPlayer",
    "ProcessSpec",
    "TimeControl",
    "describe",
    "game_protocol",
    "handshake",
    "idle_engine",
    "option_value",
    "parse_option",
    "parse_uci_option",
    "process_heuristic",
    "release_idle",
]
