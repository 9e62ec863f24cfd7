"""The package layout's rules (README "Layout", docs/pipeline.md "Where the code is"), checked
on the source, lazy imports included: the library never imports ``fingap.steps`` or the CLI,
packages import only the layers below them, and no module imports itself back through others."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "fingap"
# each package may import itself and the packages listed after it; steps and the CLI sit on top
LAYERS = {
    "core": set(),
    "ingestion": {"core"},
    "generation": {"core"},
    "retrieval": {"ingestion", "core"},
    "training": {"retrieval", "ingestion", "core"},
    "evaluation": {"training", "retrieval", "ingestion", "core"},
    "answers": {"evaluation", "training", "retrieval", "ingestion", "core"},
}


def _module(path: Path) -> str:
    parts = ["fingap", *path.relative_to(SRC).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """module -> fingap modules it imports (at any depth of the file)."""
    modules = {_module(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for mod, path in modules.items():
        package = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                names = [f"{target}.{a.name}" for a in node.names]
                found |= {n for n in names if n in modules} or ({target} & set(modules))
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in modules}
        graph[mod] = found - {mod}
    return graph


def _package(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 2 else parts[-1]


def test_the_library_never_imports_steps_or_the_cli():
    bad = {m: sorted(d for d in deps if _package(d) in ("steps", "cli"))
           for m, deps in import_graph().items() if _package(m) not in ("steps", "cli")}
    assert not {m: d for m, d in bad.items() if d}


def test_packages_import_only_the_layers_below():
    bad = []
    for mod, deps in import_graph().items():
        pkg = _package(mod)
        if pkg not in LAYERS:
            continue
        bad += [f"{mod} -> {d}" for d in sorted(deps)
                if _package(d) != pkg and _package(d) not in LAYERS[pkg] | {"fingap"}]
    assert not bad, "\n".join(bad)


def test_no_import_cycles():
    graph = import_graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                cycles.append(" -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d, stack + [d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, "\n".join(cycles)
