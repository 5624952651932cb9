"""`heurtune dashboard` serves optuna-dashboard for a storage."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
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
