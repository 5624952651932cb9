"""A UCI chess engine for tests: python-chess's legal moves, behaviours on demand.

``python fake_uci.py MODE [SCORE] [LOG]``. MODE:

* ``ok``: plays the first legal move (in python-chess's order) at once;
* ``ignore-nodes``: ignores ``go nodes`` and thinks until ``stop`` (as Debian's
  Toga II does), then answers;
* ``deaf``: thinks forever, deaf to ``stop``;
* ``slow``: takes 300 ms per move whatever it is told (a clock runs out);
* ``illegal``: answers ``a1a1``; ``garbage``: a line no UCI engine writes (which a
  GUI ignores), then ``bestmove`` without a move; ``crash``: exits 3 on its second
  ``go``.

SCORE (default 0) is the score in centipawns every ``info`` line reports (``mate3``
reports ``score mate 3``). LOG names a file every line received is appended to.
It declares options as real engines do: names with spaces, ``string`` and
``button`` options, ``spin``, ``check`` and ``combo``.
"""

import sys
import time

import chess

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
SCORE = sys.argv[2] if len(sys.argv) > 2 else "0"
LOG = sys.argv[3] if len(sys.argv) > 3 else ""

OPTIONS = """option name Hash type spin default 16 min 1 max 1024
option name Piece Activity type spin default 100 min 0 max 400
option name King Safety type spin default 100 min 0 max 400
option name OwnBook type check default true
option name Book File type string default book.bin
option name Clear Hash type button
option name Style type combo default Normal var Solid var Normal var Risky
option name UCI_Chess960 type check default false"""


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def score_words() -> str:
    if SCORE.startswith("mate"):
        return f"score mate {SCORE[4:]}"
    return f"score cp {SCORE}"


def main() -> None:
    global BOARD
    goes = 0
    thinking = False
    for line in sys.stdin:
        if LOG:
            with open(LOG, "a") as log:
                log.write(line)
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            say("Fake UCI engine, a banner line before the handshake")
            say("id name Fake UCI")
            say("id author heurtune's tests")
            say(OPTIONS)
            say("uciok")
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "setoption" and "UCI_Chess960" in line:
            BOARD = chess.Board(chess960="true" in words)
        elif words[0] == "position":
            chess960 = BOARD.chess960
            if words[1] == "fen":
                end = words.index("moves") if "moves" in words else len(words)
                BOARD = chess.Board(" ".join(words[2:end]), chess960=chess960)
            elif chess960:
                BOARD = chess.Board.from_chess960_pos(518)
            else:
                BOARD = chess.Board()
            if "moves" in words:
                for text in words[words.index("moves") + 1:]:
                    BOARD.push_uci(text)
        elif words[0] == "go":
            goes += 1
            if MODE == "crash" and goes >= 2:
                sys.exit(3)
            if MODE in ("ignore-nodes", "deaf"):
                thinking = True
                continue
            if MODE == "slow":
                time.sleep(0.3)
            answer()
        elif words[0] == "stop" and thinking and MODE == "ignore-nodes":
            thinking = False
            answer()
        elif words[0] == "quit":
            return


def answer() -> None:
    if MODE == "illegal":
        say("bestmove a1a1")
        return
    if MODE == "garbage":
        say("hello")
        say("bestmove")
        return
    move = next(iter(BOARD.legal_moves))
    say(f"info depth 1 seldepth 1 {score_words()} nodes 1 pv {BOARD.uci(move)}")
    say(f"bestmove {BOARD.uci(move)}")


BOARD = chess.Board()

if __name__ == "__main__":
    main()
