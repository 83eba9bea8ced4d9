"""The package layout: no import cycles, and the code inputs of a rule are its import closure."""

import ast
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


REGISTRY = PACKAGE_ROOT / "samplers.py"
def _sampler_name_uses(source: str, names) -> list[tuple[int, str]]:
    """(line, what) of each comparison with a sampler name (``x == "wor"``, ``"wor" in x``) and
    each literal list of sampler names (``("poisson", "wor")``) in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(o, ast.Constant) and o.value in names for o in operands):
                found.append((node.lineno, "comparison with a sampler name"))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) >= 2:
            if all(isinstance(e, ast.Constant) and e.value in names for e in node.elts):
                found.append((node.lineno, "literal list of sampler names"))
    return found


def test_no_sampler_is_compared_by_name_outside_the_registry():
    """A sampler is one registry entry (dpsampling.samplers): code selects samplers by its fields
    (rate_based, variable_size, letter, ...) or by a config, never by comparing names or listing
    them."""
    from dpsampling.samplers import GENERATORS

    found = [f"{path.relative_to(PACKAGE_ROOT)}:{line}: {what}"
             for path in sorted(PACKAGE_ROOT.rglob("*.py"))
             if path != REGISTRY
             for line, what in _sampler_name_uses(path.read_text(), set(GENERATORS))]
    assert not found, "\n".join(found)


def test_the_sampler_name_check_finds_comparisons_and_lists():
    names = {"poisson", "wor"}
    assert _sampler_name_uses('x = frame[frame.sampler == "wor"]\n', names) == [(1, "comparison with a sampler name")]
    assert _sampler_name_uses('y = s != "poisson"\nz = "wor" in t\n', names) == [
        (1, "comparison with a sampler name"), (2, "comparison with a sampler name")]
    assert _sampler_name_uses('for s in ("poisson", "wor"): pass\n', names) == [(1, "literal list of sampler names")]
    assert _sampler_name_uses('style = {("poisson", "pld"): 1}\nq = x == "pld"\n', names) == []


LAYERS = {
    # the root: names, checks, the sampler registry, files (strict YAML), versions of cached algorithms
    "dpsampling": 0, "lazy": 0, "progress": 0, "validation": 0, "samplers": 0, "io": 0, "versions": 0, "yamlfile": 0,
    "accountants": 1,  # the face and what it stands on
    "batches": 2, "integrations": 2, "benchmark": 2, "auditing": 2,  # users of the face
    "training": 3,
    "pipeline": 4,  # the workflow's plumbing: config, code inputs, claims, cost estimate, plotting, report
    "papers": 5,
    "cli": 6, "__main__": 6,
}
"""Layers, from the bottom: a module imports only its own layer and the ones below."""


def _component(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _upward_imports(graph) -> list[str]:
    found = []
    for module, imported in graph.items():
        for target in imported:
            if target.startswith("dpsampling") and LAYERS[_component(target)] > LAYERS[_component(module)]:
                found.append(f"{module} -> {target}")
    return sorted(found)


def test_layers_point_one_way():
    """Plumbing below the papers, the CLI above them: no import from pipeline/ or versions.py into
    papers/, none from the accountants into the loaders, the training or the papers, and so on."""
    graph = _graph()
    unknown = sorted({_component(m) for m in graph} - set(LAYERS))
    assert not unknown, f"give these packages a layer in LAYERS: {unknown}"
    assert not _upward_imports(graph), "\n".join(_upward_imports(graph))


def test_the_layer_check_finds_an_upward_import():
    graph = {"dpsampling.pipeline.report": {"dpsampling.papers.messages"}, "dpsampling.papers.registry": {"dpsampling.io"}}
    assert _upward_imports(graph) == ["dpsampling.pipeline.report -> dpsampling.papers.messages"]


def test_no_import_from_pipeline_or_versions_into_papers():
    """The plumbing (pipeline/, versions.py) sits below the papers: the report gets the papers'
    messages passed in, the versions' fingerprints are drawn in papers.fingerprints."""
    graph = _graph()
    below = [m for m in graph if _component(m) in ("pipeline", "versions")]
    assert below and not [f"{m} -> {t}" for m in below for t in graph[m] if _component(t) == "papers"]


def _unreached(graph, texts: str) -> list[str]:
    """Package modules no package module imports that are neither run as a program (``__main__``,
    ``if __name__ == "__main__"``) nor named in full ("dpsampling.x.y") by the package, the
    workflow, the scripts or the docs: code only tests reach."""
    imported = set().union(*graph.values())
    unreached = []
    for module in sorted(set(graph) - imported):
        path = PACKAGE_ROOT.parent / (module.replace(".", "/") + ".py")
        program = path.exists() and '__name__ == "__main__"' in path.read_text()
        if not (module.endswith("__main__") or program or f"{module}\"" in texts or f"{module}`" in texts
                or f"{module}\n" in texts or f"{module} " in texts or module == "dpsampling"):
            unreached.append(module)
    return unreached


def test_every_module_is_reached_by_more_than_the_tests():
    """A module only the tests import is dead weight or a missing wire (the kept-bins phases once
    were: the dp_accounting ledger repeated their rule instead of calling them)."""
    root = PACKAGE_ROOT.parents[1]
    sources = [*PACKAGE_ROOT.rglob("*.py"), *root.glob("workflow/**/*"), root / "Snakefile", *root.glob("scripts/**/*"),
               *root.glob("docs/**/*.md"), root / "README.md", root / "pyproject.toml"]
    texts = "\n".join(line for path in sources if path.is_file() for line in path.read_text(errors="replace").splitlines()
                      # the package's own imports are the graph's
                      if not (path.is_relative_to(PACKAGE_ROOT) and line.lstrip().startswith(("import ", "from "))))
    assert _unreached(_graph(), texts + "\n") == []


def test_the_reach_check_finds_a_module_only_tests_import():
    graph = {"dpsampling": {"dpsampling.a"}, "dpsampling.a": set(), "dpsampling.orphan": set()}
    assert _unreached(graph, "") == ["dpsampling.orphan"]
    assert _unreached(graph, "python -m dpsampling.orphan\n") == []
