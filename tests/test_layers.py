"""The architecture as a test: layers import only downward, only tuning/ imports
Optuna, the study-file format imports no Optuna code, and no module import
cycle exists inside a layer. Read from the sources (ast), nothing imported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "heurtune"
# each layer may import the ones after it in this list (and the top-level modules)
LAYERS = ("cli", "tuning", "match", "engine", "games")
OPTUNA = ("optuna", "optuna_dashboard")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module name this file imports (absolute; ``from X import y`` gives X
    and X.y, as y may be a module), wherever the import stands (functions too)."""
    tree = ast.parse(path.read_text(), str(path))
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
                   for stmt in block.body for n in ast.walk(stmt)}
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:  # for annotations only: no import at run time
            continue
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
GRAPH = {name: {m for m in _imports(path) if m in MODULES} for name, path in MODULES.items()}
EXTERNAL = {name: _imports(path) for name, path in MODULES.items()}


def _layer(module: str) -> str | None:
    if module == "heurtune.__main__":  # ``python -m heurtune``: the command line
        return "cli"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_the_package_is_seen() -> None:
    assert {"heurtune.cli", "heurtune.tuning.run", "heurtune.games.morris"} <= set(MODULES)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_upward_import(module: str) -> None:
    own = _layer(module)
    if own is None:  # the top-level modules (errors, tomlio, the cache) import no layer
        assert not {_layer(m) for m in GRAPH[module]} - {None}, GRAPH[module]
        return
    allowed = set(LAYERS[LAYERS.index(own):])
    upward = sorted(m for m in GRAPH[module] if _layer(m) not in allowed | {None})
    assert not upward, f"{module} ({own}) imports a layer above it: {upward}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_only_tuning_imports_optuna(module: str) -> None:
    uses = sorted(m for m in EXTERNAL[module] if m.split(".")[0] in OPTUNA)
    if _layer(module) != "tuning":
        assert not uses, f"{module} imports {uses}: only heurtune.tuning may"


def _reachable(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        for n in GRAPH[m]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def test_the_study_file_format_imports_no_optuna_code() -> None:
    """studyfile/ (and the sampler registry it validates [sampler] with) reaches no
    module that imports Optuna; package faces (__init__) are not followed."""
    fmt = [m for m in MODULES if m.startswith("heurtune.tuning.studyfile")]
    for start in fmt:
        reached = {start} | {m for m in _reachable_modules(start)}
        with_optuna = sorted(m for m in reached
                             if any(x.split(".")[0] in OPTUNA for x in EXTERNAL[m]))
        assert not with_optuna, f"{start} reaches Optuna through {with_optuna}"


def _reachable_modules(start: str) -> set[str]:
    """Modules reachable from ``start`` through imports of modules, not of
    package faces (a face re-exports; the modules behind it are what is used)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        m = todo.pop()
        for n in GRAPH[m]:
            if MODULES[n].name == "__init__.py" or n in seen:
                continue
            seen.add(n)
            todo.append(n)
    return seen


def test_no_import_cycle_between_modules() -> None:
    """No module reaches itself through module imports (faces not followed: a
    package's __init__ re-exporting its modules is no cycle)."""
    cycles = sorted(m for m in MODULES
                    if MODULES[m].name != "__init__.py" and m in _reachable_modules(m))
    assert not cycles, f"import cycles through {cycles}"


def test_no_cycle_between_tuning_subpackages() -> None:
    """Within tuning/, the sub-packages form no cycle (the confirm -> tune ->
    dashboard -> confirm cycle of the flat layout is gone for good)."""

    def part(m: str) -> str | None:
        p = m.split(".")
        return p[2] if len(p) > 2 and p[1] == "tuning" else None

    edges: dict[str, set[str]] = {}
    for m, targets in GRAPH.items():
        a = part(m)
        if a is None or MODULES[m].name == "__init__.py" and m.count(".") == 1:
            continue
        for t in targets:
            b = part(t)
            if b is not None and b != a and MODULES[t].name != "__init__.py" or (
                    b is not None and b != a and t.count(".") > 2):
                edges.setdefault(a, set()).add(b)

    def reaches(a: str, goal: str, seen: set[str]) -> bool:
        for b in edges.get(a, ()):
            if b == goal or (b not in seen and reaches(b, goal, seen | {b})):
                return True
        return False

    cyclic = sorted(a for a in edges if reaches(a, a, {a}))
    assert not cyclic, f"tuning sub-packages in a cycle: {cyclic} ({edges})"


def test_the_test_checks_something() -> None:
    """The checks above fail on a real upward import (a cli import in games)."""
    fake = dict(GRAPH)
    fake["heurtune.games.morris"] = GRAPH["heurtune.games.morris"] | {"heurtune.cli"}
    own = _layer("heurtune.games.morris")
    assert own is not None
    allowed = set(LAYERS[LAYERS.index(own):])
    assert any(_layer(m) not in allowed | {None} for m in fake["heurtune.games.morris"])
