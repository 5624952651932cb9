"""`heurtune dashboard` serves optuna-dashboard for a storage."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import optuna
import pytest

from heurtune.cli import main


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_dashboard_serves_the_studies(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'h.db'}"
    optuna.create_study(study_name="shown", storage=url).optimize(
        lambda t: t.suggest_float("x", 0, 1), n_trials=2
    )
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "heurtune", "dashboard", "--storage", url, "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        body = None
        while time.monotonic() < deadline and body is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/studies", timeout=2) as r:
                    body = json.loads(r.read())
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.3)
        assert body is not None, "the dashboard never answered"
        assert [s["study_name"] for s in body["study_summaries"]] == ["shown"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_dashboard_refuses_a_missing_storage(tmp_path, capsys) -> None:
    db = tmp_path / "none.db"
    assert main(["dashboard", "--storage", f"sqlite:///{db}"]) == 2
    assert "does not exist" in capsys.readouterr().err and not db.exists()


@pytest.mark.slow
def test_dashboard_is_read_only_by_default(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'd.db'}"
    optuna.create_study(study_name="kept", storage=url).optimize(
        lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "heurtune", "dashboard", "--storage", url,
                             "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        studies = None
        while studies is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{base}/api/studies", timeout=2) as r:
                    studies = json.loads(r.read())["study_summaries"]
            except OSError:
                assert proc.poll() is None
                time.sleep(0.3)
        assert studies is not None
        study_id = studies[0]["study_id"]
        request = urllib.request.Request(f"{base}/api/studies/{study_id}", method="DELETE")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        assert refused.value.code == 403
        note = urllib.request.Request(f"{base}/api/studies", method="POST",
                                      data=b'{"study_name": "new", "directions": ["minimize"]}')
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(note, timeout=5)
        assert refused.value.code == 403
        assert [s.study_name for s in optuna.get_all_study_summaries(url)] == ["kept"]
        assert len(optuna.load_study(study_name="kept", storage=url).trials) == 2
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# -- the Host and Origin checks, the WSGI app called directly -------------------------

def _served(tmp_path, *, writable: bool, host: str = "127.0.0.1", port: int = 8080):
    """The dashboard's app for a storage holding one study ``kept``, and the storage's URL."""
    from heurtune.tuning.views import dashboard_app

    url = f"sqlite:///{tmp_path / 'w.db'}"
    optuna.create_study(study_name="kept", storage=url).optimize(
        lambda t: t.suggest_float("x", 0, 1), n_trials=1)
    app, _ = dashboard_app(url, None, writable=writable, host=host, port=port)
    return app, url


def _call(app, method: str, path: str, **headers: str) -> tuple[int, bytes]:
    """One request to a WSGI app: its status code and body (``headers``: HTTP_* names)."""
    from wsgiref.util import setup_testing_defaults

    environ: dict = {"REQUEST_METHOD": method, "PATH_INFO": path, "CONTENT_LENGTH": "0"}
    setup_testing_defaults(environ)
    environ.pop("HTTP_HOST", None)
    environ.update({f"HTTP_{k.upper()}": v for k, v in headers.items()})
    status: list[str] = []
    body = b"".join(app(environ, lambda s, _h, _e=None: status.append(s)))
    return int(status[0].split()[0]), body


def _study_id(app) -> int:
    code, body = _call(app, "GET", "/api/studies", host="127.0.0.1:8080")
    assert code == 200
    return int(json.loads(body)["study_summaries"][0]["study_id"])


def _names(url: str) -> list[str]:
    return [s.study_name for s in optuna.get_all_study_summaries(url)]


def test_writable_dashboard_refuses_a_delete_from_another_site(tmp_path) -> None:
    app, url = _served(tmp_path, writable=True)
    path = f"/api/studies/{_study_id(app)}"
    code, body = _call(app, "DELETE", path, host="127.0.0.1:8080", origin="http://evil.example")
    assert code == 403 and b"another site" in body
    code, _ = _call(app, "DELETE", path, host="127.0.0.1:8080",
                    referer="http://evil.example/page")  # no Origin: the Referer decides
    assert code == 403
    code, _ = _call(app, "DELETE", path, host="127.0.0.1:8080", origin="null")
    assert code == 403
    code, _ = _call(app, "POST", "/api/studies", host="127.0.0.1:8080",
                    origin="http://127.0.0.1:9999")  # another port is another site
    assert code == 403
    assert _names(url) == ["kept"]


def test_writable_dashboard_deletes_for_its_own_pages(tmp_path) -> None:
    app, url = _served(tmp_path, writable=True)
    code, _ = _call(app, "DELETE", f"/api/studies/{_study_id(app)}", host="localhost:8080",
                    origin="http://localhost:8080")
    assert code == 204 and _names(url) == []


@pytest.mark.parametrize("headers", [{"referer": "http://127.0.0.1:8080/dashboard/"}, {}],
                         ids=["referer", "neither"])
def test_writable_dashboard_deletes_without_an_origin(tmp_path, headers) -> None:
    app, url = _served(tmp_path, writable=True)
    code, _ = _call(app, "DELETE", f"/api/studies/{_study_id(app)}", host="127.0.0.1:8080",
                    **headers)
    assert code == 204 and _names(url) == []


@pytest.mark.parametrize("writable", [False, True], ids=["read-only", "writable"])
def test_dashboard_refuses_another_host(tmp_path, writable: bool) -> None:
    app, url = _served(tmp_path, writable=writable)
    code, body = _call(app, "GET", "/api/studies", host="evil.example:8080")
    assert code == 403 and b"evil.example" in body
    code, _ = _call(app, "GET", "/api/studies", host="127.0.0.1:8081")
    assert code == 403
    code, _ = _call(app, "DELETE", "/api/studies/1", host="evil.example:8080",
                    origin="http://evil.example:8080")  # DNS rebinding: same origin, wrong host
    assert code == 403
    assert _names(url) == ["kept"]
    for host in ("127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080"):
        code, body = _call(app, "GET", "/api/studies", host=host)
        assert code == 200 and json.loads(body)["study_summaries"][0]["study_name"] == "kept"


def test_read_only_dashboard_still_refuses_changes_from_its_own_pages(tmp_path) -> None:
    app, url = _served(tmp_path, writable=False)
    code, body = _call(app, "DELETE", f"/api/studies/{_study_id(app)}", host="127.0.0.1:8080",
                       origin="http://127.0.0.1:8080")
    assert code == 403 and b"read-only" in body and _names(url) == ["kept"]


def test_exposed_dashboard_takes_any_host_but_not_other_sites(tmp_path) -> None:
    app, url = _served(tmp_path, writable=True, host="0.0.0.0", port=8080)
    code, _ = _call(app, "GET", "/api/studies", host="tuner.lan:8080")
    assert code == 200
    study = json.loads(_call(app, "GET", "/api/studies", host="tuner.lan:8080")[1])
    path = f"/api/studies/{study['study_summaries'][0]['study_id']}"
    code, _ = _call(app, "DELETE", path, host="tuner.lan:8080", origin="http://evil.example")
    assert code == 403 and _names(url) == ["kept"]
    code, _ = _call(app, "DELETE", path, host="tuner.lan:8080", origin="http://tuner.lan:8080")
    assert code == 204 and _names(url) == []


@pytest.mark.parametrize("writable", [False, True], ids=["read-only", "writable"])
def test_dashboard_command_says_its_mode_and_answers_its_own_address(
        tmp_path, monkeypatch, capsys, writable: bool) -> None:
    import wsgiref.simple_server

    url = f"sqlite:///{tmp_path / 'c.db'}"
    optuna.create_study(study_name="kept", storage=url)
    served: list = []

    class _Server:
        def serve_forever(self) -> None:
            pass

        def server_close(self) -> None:
            pass

    def fake_make_server(host, port, app, **_kwargs):
        served.append(app)
        return _Server()

    monkeypatch.setattr(wsgiref.simple_server, "make_server", fake_make_server)
    assert main(["dashboard", "--storage", url, "--host", "localhost", "--port", "8123"]
                + (["--writable"] if writable else [])) == 0
    out = capsys.readouterr().out
    assert "http://localhost:8123/" in out
    assert (("writable: studies can be changed and deleted from the browser; requests from "
             "other sites are refused") in out) == writable
    assert ("read-only" in out) != writable
    app = served[0]
    assert _call(app, "GET", "/api/studies", host="127.0.0.1:8123")[0] == 200
    assert _call(app, "GET", "/api/studies", host="localhost:8080")[0] == 403


@pytest.mark.parametrize("sig,code,word", [("SIGTERM", 143, "terminated"),
                                           ("SIGINT", 130, "interrupted")])
def test_a_signal_in_the_middle_of_a_request_stops_the_dashboard(
        tmp_path, monkeypatch, capsys, sig: str, code: int, word: str) -> None:
    """Ctrl-C or SIGTERM landing while a request is answered stops the server
    (exit 130 / 143, one line). wsgiref's handler catches everything a request
    raises, so a signal raised inside one used to print a traceback and serve on
    (seen in CI: a dashboard that ignored SIGTERM)."""
    import os
    import signal
    import wsgiref.simple_server

    url = f"sqlite:///{tmp_path / 's.db'}"
    optuna.create_study(study_name="kept", storage=url)

    class _Server:
        """serve_forever answers one request, during which the signal arrives, and
        swallows what it raises there, as wsgiref's handler does; then it serves
        until shut down (a minute at most, should nothing shut it down)."""

        def __init__(self) -> None:
            self.down = threading.Event()
            self.served_until_shut_down = False

        def serve_forever(self) -> None:
            try:  # the request
                os.kill(os.getpid(), getattr(signal, sig))
                time.sleep(0.2)  # the handler runs here
            except BaseException:  # noqa: BLE001 (wsgiref's bare except)
                pass
            self.served_until_shut_down = self.down.wait(60)

        def shutdown(self) -> None:
            self.down.set()

        def server_close(self) -> None:
            pass

    server = _Server()
    monkeypatch.setattr(wsgiref.simple_server, "make_server", lambda *_a, **_k: server)
    assert main(["dashboard", "--storage", url, "--port", "8124"]) == code
    assert server.served_until_shut_down  # stopped, not served on until the minute was up
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and word in err and "Traceback" not in err, err
