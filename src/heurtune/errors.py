"""The one exception type that the command line turns into a one-line message."""


class HeurtuneError(Exception):
    """A user-facing error: bad input, an unknown name, an unreachable storage.

    The CLI prints ``heurtune: error: <message>`` on stderr and exits with code 2.
    Anything else that escapes is a bug and keeps its traceback.
    """
