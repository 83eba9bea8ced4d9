"""The package layout: no import cycles, and the code inputs of a rule are its import closure."""

from pathlib import Path

from dpsampling.pipeline.code_inputs import PACKAGE_ROOT, _module_name, import_closure, imported_modules


def _graph() -> dict[str, set[str]]:
    """module -> the package modules it imports (anywhere in its body), without its own parent
    packages (a module importing its package's __init__ is not a cycle: Python has it loading)."""
    graph = {}
    for path in PACKAGE_ROOT.rglob("*.py"):
        name, is_package = _module_name(path)
        parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = imported_modules(path, name, is_package) - parents - {name}
    return graph


def _cycle(graph):
    """One import cycle as a list of modules, or None (depth-first search)."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for child in sorted(graph.get(node, ())):
            if state.get(child) == "open":
                return stack[stack.index(child):] + [child]
            if child not in state and (found := visit(child)):
                return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_package_has_no_import_cycles():
    assert _cycle(_graph()) is None, " -> ".join(_cycle(_graph()))


def test_cycle_detection_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_code_inputs_are_the_relative_import_closure(tmp_path, monkeypatch):
    script = tmp_path / "script.py"
    script.write_text("from dpsampling.papers.chua25.trunc import truncation_table\nimport numpy\n")
    monkeypatch.chdir(tmp_path)
    files = import_closure(script)
    assert files[0] == "script.py" or "script.py" in files
    assert not any(Path(f).is_absolute() for f in files)
    names = {Path(f).as_posix().split("src/")[-1] for f in files}
    assert {"dpsampling/__init__.py", "dpsampling/papers/__init__.py", "dpsampling/papers/chua25/__init__.py",
            "dpsampling/papers/chua25/trunc.py"} <= names
    assert not any("numpy" in f for f in files)


def test_a_script_importing_a_module_follows_its_imports():
    """The claims script reaches every paper's claims module through the registry (a hand-written
    list used to name only claims/)."""
    root = Path(__file__).resolve().parents[1]
    files = {Path(f).resolve() for f in import_closure(root / "scripts" / "check_claims.py")}
    for module in ("papers/lebeda24/table1.py", "papers/chua25/fig3.py", "accountants/ballsbins/sampling.py",
                   "pipeline/claims/check.py", "io.py"):
        assert PACKAGE_ROOT / module in files, module
