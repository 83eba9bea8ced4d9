"""Every example runs (issue 32.5): each `dpsampling ...` command of a code block and each Python
block of README.md and docs/*.md is run, so a renamed flag, keyword or function fails here.

- Commands run in-process (``dpsampling.cli.main.main``) in an empty folder and must exit 0
  (``--help``: argparse's exit 0). A yaml block marked ``<!-- doc-test: file NAME -->`` is written
  there first (the docs' ``run.yaml``).
- Python blocks of a page run in order in one namespace (a page's later blocks use its earlier
  ones); a block of ``>>>`` lines is a doctest (ELLIPSIS, NORMALIZE_WHITESPACE): the numbers it
  prints are checked.
- A number a page prints in its prose is checked where the page says how it is made:
  ``<!-- doc-test: check dpsampling ... => TEXT | TEXT -->`` runs the command and finds each TEXT
  in what it prints.
- A page says, in an HTML comment right above a block, how the test may run it, and why:
  ``<!-- doc-test: quick OLD => NEW (reason) -->`` (a quicker setting in its commands),
  ``<!-- doc-test: parse-only COMMAND (reason) -->`` (that subcommand's flags are parsed by its
  own parser and it is not run: ``estimate`` times a calibration run of every experiment), ``<!-- doc-test: setup CODE -->``
  (Python run first: the names a sketch of the user's own loop takes as given),
  ``<!-- doc-test: skip (reason) -->`` (needs a GPU). A block that imports torch, opacus or jax
  (or is marked ``<!-- doc-test: needs torch -->``) is skipped where that package is not
  installed (the extras of pyproject.toml), and says so.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import importlib.util
import io
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dpsampling.cli.main import COMMANDS, main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMENT = r"<!-- doc-test:(?:(?!-->).)*-->"  # one directive: it never runs past its own -->
FENCE = re.compile(r"((?:" + COMMENT + r"\s*\n)*)^```(\w*)\n(.*?)^```", re.S | re.M)
DIRECTIVE = re.compile(r"<!-- doc-test: (\w[\w-]*)\s*((?:(?!-->).)*?)\s*-->", re.S)
OPTIONAL = ("torch", "opacus", "jax", "jax_privacy")
"""Packages of the extras a block may need; it is skipped where they are not installed."""


@dataclass
class Block:
    page: str
    line: int
    language: str
    text: str
    directives: list[tuple[str, str]] = field(default_factory=list)

    def given(self, name: str) -> list[str]:
        return [value for key, value in self.directives if key == name]


def blocks(path: Path) -> list[Block]:
    text = path.read_text()
    out = []
    for match in FENCE.finditer(text):
        line = text[:match.start(2)].count("\n")  # the fence's line, 1-based after the +1 below
        directives = DIRECTIVE.findall(match.group(1))
        out.append(Block(path.relative_to(ROOT).as_posix(), line, match.group(2), match.group(3), directives))
    return out


def commands(block: Block) -> list[str]:
    """The `dpsampling ...` lines of a shell block (continuations joined, comments dropped)."""
    joined = block.text.replace("\\\n", " ")
    lines = [line.split(" #")[0].strip() for line in joined.splitlines()]
    return [line for line in lines if line.startswith("dpsampling ")]


def _all_blocks() -> list[Block]:
    return [block for page in PAGES for block in blocks(page)]


def _command_cases():
    cases = []
    for block in _all_blocks():
        if block.language not in ("bash", "sh", "shell", ""):
            continue
        for index, command in enumerate(commands(block)):
            cases.append(pytest.param(block, command, id=f"{block.page}:{block.line + 1}:{index}"))
    return cases


def _files(tmp_path: Path) -> None:
    """The files the docs' commands read (yaml blocks marked ``file NAME``)."""
    for block in _all_blocks():
        for name in block.given("file"):
            (tmp_path / name).write_text(block.text)


def _quick(block: Block, command: str) -> str:
    for rule in block.given("quick"):
        old, new = (part.strip() for part in rule.split("(")[0].split("=>"))
        assert old in command or not any(old in c for c in commands(block)), f"{block.page}: {old!r} not found"
        command = command.replace(old, new)
    return command


@pytest.mark.parametrize("block, command", _command_cases())
def test_every_dpsampling_command_of_the_docs_runs(block, command, tmp_path, monkeypatch, capsys):
    for reason in block.given("skip"):
        pytest.skip(f"{block.page}: {reason}")
    monkeypatch.chdir(tmp_path)
    _files(tmp_path)
    argv = shlex.split(_quick(block, command))[1:]
    if argv[0] in [value.split()[0] for value in block.given("parse-only")]:
        module = importlib.import_module(COMMANDS[argv[0]].module)
        module.build_parser(f"dpsampling {argv[0]}").parse_args(argv[1:])  # a renamed flag exits 2
        return
    try:
        code = main(argv)
    except SystemExit as exit_info:  # --help
        code = exit_info.code
    captured = capsys.readouterr()
    assert code == 0, f"{block.page}: {command}\n{captured.err}"
    assert captured.out, command


def test_the_extraction_finds_the_commands_and_blocks_a_reader_sees():
    """Not an empty parametrization: the README's own examples are among the cases."""
    readme = [block for block in blocks(ROOT / "README.md")]
    assert any(c.startswith("dpsampling compare") for b in readme for c in commands(b))
    assert any(b.language == "python" for b in readme)
    assert len(_command_cases()) >= 25 and len(_check_cases()) >= 5


CHECK = re.compile(r"<!-- doc-test: check (dpsampling (?:(?!-->).)*?) => ((?:(?!-->).)*?) -->", re.S)


def _check_cases():
    cases = []
    for page in PAGES:
        text = page.read_text()
        for match in CHECK.finditer(text):
            line = text[:match.start()].count("\n") + 1
            name = page.relative_to(ROOT).as_posix()
            cases.append(pytest.param(match.group(1), [t.strip() for t in match.group(2).split(" | ")],
                                      id=f"{name}:{line}"))
    return cases


@pytest.mark.parametrize("command, texts", _check_cases())
def test_the_numbers_the_docs_print_are_the_commands(command, texts, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _files(tmp_path)
    assert main(shlex.split(" ".join(command.split()))[1:]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for text in texts:
        assert " ".join(text.split()) in out, f"{command}: {text!r} not in what it prints:\n{out}"


def _needs(block: Block) -> list[str]:
    imported = set(re.findall(r"^\s*(?:>>> )?(?:from|import) (\w+)", block.text, re.M))
    wanted = [name for name in OPTIONAL if name in imported]
    return wanted + [value.split()[0] for value in block.given("needs")]


def _python_pages():
    pages = {}
    for block in _all_blocks():
        if block.language == "python":
            pages.setdefault(block.page, []).append(block)
    return [pytest.param(page, found, id=page) for page, found in pages.items()]


@pytest.mark.parametrize("page, found", _python_pages())
def test_every_python_block_of_the_docs_runs(page, found, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__doc_example__"}
    skipped = []
    for block in found:
        where = f"{page}:{block.line + 1}"
        reasons = block.given("skip") + [f"needs {name} (not installed)" for name in _needs(block)
                                         if importlib.util.find_spec(name) is None]
        if reasons:
            skipped.append(f"{where}: {reasons[0]}")
            continue
        for setup in block.given("setup"):
            exec(compile(setup, f"{where} (setup)", "exec"), namespace)
        if block.text.lstrip().startswith(">>>"):
            _doctest(block.text, where, namespace)
        else:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(block.text, where, "exec"), namespace)
    if skipped and len(skipped) == len(found):
        pytest.skip("; ".join(skipped))


def _doctest(text: str, where: str, namespace: dict) -> None:
    test = doctest.DocTestParser().get_doctest(text, namespace, where, where, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    runner.run(test, out=report.write, clear_globs=False)
    namespace.update(test.globs)
    assert runner.failures == 0, report.getvalue()
