"""The package layout: no import cycles, and the code inputs of a rule are its import closure."""

import ast
from pathlib import Path

from dpsampling.pipeline.code_inputs import PACKAGE_ROOT, _module_name, import_closure, imported_modules, module_file


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


def test_a_lazy_import_of_a_package_module_is_in_the_closure(tmp_path, monkeypatch):
    """``lazy_import("dpsampling...")`` runs the module at first use: editing it must rerun the rule."""
    script = tmp_path / "script.py"
    script.write_text('from dpsampling.lazy import lazy_import\n'
                      'trunc = lazy_import("dpsampling.papers.chua25.trunc")\nscipy = lazy_import("scipy.special")\n')
    monkeypatch.chdir(tmp_path)
    names = {Path(f).as_posix().split("src/")[-1] for f in import_closure(script)}
    assert {"dpsampling/lazy.py", "dpsampling/papers/chua25/trunc.py", "dpsampling/papers/chua25/__init__.py"} <= names
    assert not any("scipy" in name for name in names)


def test_a_script_importing_a_module_follows_its_imports():
    """The claims script reaches every paper's claims module through the registry (a hand-written
    list used to name only claims/)."""
    root = Path(__file__).resolve().parents[1]
    files = {Path(f).resolve() for f in import_closure(root / "scripts" / "check_claims.py")}
    for module in ("papers/lebeda24/table1.py", "papers/chua25/fig3.py", "accountants/ballsbins/sampling.py",
                   "pipeline/claims/check.py", "io.py"):
        assert PACKAGE_ROOT / module in files, module


REGISTRY = PACKAGE_ROOT / "samplers"


def _sampler_name_literals(source: str, names) -> list[tuple[int, str]]:
    """(line, value) of each string constant in ``source`` whose whole value is one of ``names``
    (a docstring or a sentence that mentions one is not)."""
    return sorted((node.lineno, node.value) for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names)


def test_no_sampler_is_named_outside_the_registry():
    """A sampler is one class of the registry (``dpsampling.samplers``): code outside it names one
    by its instance (``POISSON.name``) or selects by its fields (rate_based, letter, ...) or by a
    config, never by writing a sampler's or a generator variant's name."""
    from dpsampling.samplers import GENERATORS, SAMPLER_NAMES

    found = [f"{path.relative_to(PACKAGE_ROOT)}:{line}: {value!r}"
             for path in sorted(PACKAGE_ROOT.rglob("*.py"))
             if not path.is_relative_to(REGISTRY)
             for line, value in _sampler_name_literals(path.read_text(), {*GENERATORS, *SAMPLER_NAMES})]
    assert not found, "\n".join(found)


def test_the_sampler_name_check_finds_every_literal():
    names = {"poisson", "wor"}
    assert _sampler_name_literals('x = frame[frame.sampler == "wor"]\n', names) == [(1, "wor")]
    assert _sampler_name_literals('run = Phase("poisson", 1.0)\nstyle = {("wor", "pld"): 1}\n', names) == [
        (1, "poisson"), (2, "wor")]
    assert _sampler_name_literals('"""Poisson or wor batches."""\ny = f"{a} wor"\nz = POISSON.name\n', names) == []


LAZY_PACKAGES = ("dpsampling.batches", "dpsampling.accountants.ballsbins")
"""Packages whose ``__init__`` loads their modules on first use (``batches``: a sampler's class
imports the generators without the loader, which imports the registry; ``accountants.ballsbins``:
a job that parses an order list or reads a shard does not load the kernels, Numba or SciPy)."""


def _lazy_package_imports(source: str, name: str, is_package: bool = False) -> list[int]:
    """Lines of ``source`` (module ``name``) that take a name from a lazy package itself (``from
    dpsampling.batches import BatchSampler``, ``from dpsampling import batches``): the code inputs
    (``pipeline.code_inputs``) would miss the module that holds it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                base = ".".join(anchor[:len(anchor) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names = [f"{base}.{alias.name}" for alias in node.names]
            if any(n in LAZY_PACKAGES for n in names) or (base in LAZY_PACKAGES and any(
                    module_file(n) is None for n in names)):  # a submodule of the package is its module
                found.append(node.lineno)
        elif isinstance(node, ast.Import) and any(alias.name in LAZY_PACKAGES for alias in node.names):
            found.append(node.lineno)
    return found


def test_the_package_imports_from_the_modules_of_a_lazy_package():
    """Package code imports ``dpsampling.batches.loader`` or ``.generators``, never the lazy package,
    so that a rule's code inputs (its import closure) hold the module it uses."""
    found = []
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        name, is_package = _module_name(path)
        if not any(name == lazy or name.startswith(f"{lazy}.") for lazy in LAZY_PACKAGES):
            found += [f"{path.relative_to(PACKAGE_ROOT)}:{line}" for line in
                      _lazy_package_imports(path.read_text(), name, is_package)]
    assert not found, "\n".join(found)


def test_the_lazy_import_check_finds_an_import_of_the_package():
    name = "dpsampling.training.sgd"
    assert _lazy_package_imports("from dpsampling import batches\n", name) == [1]
    assert _lazy_package_imports("x = 1\nfrom dpsampling.batches import BatchSampler\n", name) == [2]
    assert _lazy_package_imports("from ..batches import make_batches\nimport dpsampling.batches\n", name) == [1, 2]
    assert _lazy_package_imports("from dpsampling.batches.loader import BatchSampler\n"
                                 "from dpsampling.batches import loader\n", name) == []


LAYERS = {
    # 0, the root: names, checks, files (strict YAML), versions of cached algorithms
    "dpsampling": 0, "lazy": 0, "progress": 0, "validation": 0, "io": 0, "versions": 0, "yamlfile": 0,
    # 1, the kernels the samplers' classes call, which know no sampler: the accountants' numerical
    # core (its package, certified engine, closed forms, references, frames, Monte Carlo estimators)
    # and the batch generators (the batches package loads its modules on first use)
    "accountants": 1, "batches": 1,
    "samplers": 2,  # the registry: one class per sampler, calling the kernels
    # 3, the face and what stands on the registry
    "accountants.accountant": 3, "accountants.calibrate": 3, "accountants.certified.kept_bins": 3,
    "accountants.compare": 3, "accountants.knobs": 3, "accountants.loader": 3, "accountants.matrix": 3,
    "accountants.run": 3, "accountants.schedule": 3,
    "batches.loader": 4, "integrations": 4, "benchmark": 4, "auditing": 4,  # users of the face
    "training": 5,
    "pipeline": 6,  # the workflow's plumbing: config, code inputs, claims, cost estimate, plotting, report
    "papers": 7,
    "cli": 8, "__main__": 8,
}
"""Layers, from the bottom: a module imports only its own layer and the ones below. A module's
layer is that of the longest dotted prefix of its name (after ``dpsampling.``) listed here: the
kernels (1) below the sampler registry (2) below the face (3), the loader, audit, integrations
and benchmarks (4), the training, the pipeline, the papers and the CLI."""


def _component(module: str) -> str:
    """The longest prefix of ``module`` (without ``dpsampling.``) with a layer, else its first part."""
    parts = module.split(".")[1:] or ["dpsampling"]
    return next((".".join(parts[:depth]) for depth in range(len(parts), 0, -1) if ".".join(parts[:depth]) in LAYERS),
                parts[0])


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
    # the finer layers: a kernel importing the registry, the registry importing the loader or the face
    graph = {"dpsampling.accountants.certified.engine": {"dpsampling.samplers", "dpsampling.accountants.frames"},
             "dpsampling.samplers.epochs": {"dpsampling.batches", "dpsampling.batches.generators",
                                            "dpsampling.batches.loader", "dpsampling.accountants.run"}}
    assert _upward_imports(graph) == ["dpsampling.accountants.certified.engine -> dpsampling.samplers",
                                      "dpsampling.samplers.epochs -> dpsampling.accountants.run",
                                      "dpsampling.samplers.epochs -> dpsampling.batches.loader"]


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
