"""A long match with 2 worker processes, played from a thread other than the
main one (its workers cannot use Linux's parent-death signal: they poll for
their parent instead). For tests/match/test_orphans.py, which kills it."""

import threading

from heurtune.match import play_match


def main() -> None:
    play_match("morris:seed", "morris:seed", jobs=2, pairs=400, seed=1)


if __name__ == "__main__":  # the workers import this file again (spawn)
    thread = threading.Thread(target=main)
    thread.start()
    thread.join()
