"""A protocol engine for tests: Isolation, first legal move, and a fault on demand.

``python fake_engine.py MODE`` where MODE is ``ok`` or one fault: ``illegal``
(plays a blocked square), ``garbage`` (answers ``go`` with a line that is not
``bestmove``), ``timeout`` (never answers ``go``), ``crash`` (exits on its
second ``go``), ``silent`` (never answers ``uci``), ``badoption`` (declares an
option heurtune cannot read), ``wild-illegal`` (an illegal move whenever its
``style`` option is ``wild``: a fault of some weights only). Self-contained: it
imports nothing of heurtune, so starting it is quick.
"""

import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
NAMES = [f"{'abcdefg'[s % 7]}{s // 7 + 1}" for s in range(49)]


def legal(moves: list[str]) -> list[str]:
    blocked, pos = set(), [-1, -1]
    for i, name in enumerate(moves):
        sq = NAMES.index(name)
        blocked.add(sq)
        pos[i % 2] = sq
    me = pos[len(moves) % 2]
    if me < 0:
        return [NAMES[s] for s in range(49) if s not in blocked]
    r, c = divmod(me, 7)
    out = []
    for dr, dc in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
        if 0 <= r + dr < 7 and 0 <= c + dc < 7 and (r + dr) * 7 + c + dc not in blocked:
            out.append(NAMES[(r + dr) * 7 + c + dc])
    return sorted(out, key=NAMES.index)


def main() -> None:
    moves: list[str] = []
    goes = 0
    style = "calm"
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            if MODE == "silent":
                continue
            print("id name fake")
            print("id game isolation")
            print("option name weight type float default 1 min 0 max 2")
            print("option name depth type int default 2 min 1 max 5")
            print("option name style type choice default calm var calm var wild")
            if MODE == "badoption":
                print("option name broken type float default 9 min 0 max 1")
            print("uciok")
        elif words[0] == "isready":
            print("readyok")
        elif words[:3] == ["setoption", "name", "style"] and len(words) >= 5:
            style = words[4]
        elif words[0] == "position":
            moves = words[3:] if len(words) > 2 and words[2] == "moves" else []
        elif words[0] == "go":
            goes += 1
            if MODE == "timeout":
                time.sleep(3600)
            if MODE == "crash" and goes >= 2:
                sys.exit(3)
            if MODE == "garbage":
                print("hello there")
            elif (MODE == "illegal" or (MODE == "wild-illegal" and style == "wild")) and moves:
                print(f"bestmove {moves[-1]}")
            else:
                options = legal(moves)
                print("info depth 1 nodes 1")
                print(f"bestmove {options[0] if options else 'none'}")
        elif words[0] == "quit":
            return
        sys.stdout.flush()


if __name__ == "__main__":
    main()
