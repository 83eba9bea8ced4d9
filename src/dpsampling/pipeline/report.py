"""The reproduction report: what ran, with which parameters, how long it took, what reproduced.

``write_report`` writes ``results/REPORT.md`` (readable over ssh) from whatever is on disk:

- experiments are discovered, not listed here: the experiment target rules of the workflow
  (passed in by the ``report`` rule as ``{experiment id: files it needs}``), the claims
  registry, and the folders under ``results/`` and ``benchmarks/``. An experiment none of whose
  files exist is listed as not run, so the report also works after a partial run;
- parameters, seeds and package versions come from each Parquet file's metadata
  (``dpsampling.io.read_metadata``), never from the current config;
- the time of an experiment is the sum over its jobs' ``benchmark:`` files
  ``benchmarks/<experiment>/**/*.tsv`` (wall seconds ``s`` and ``cpu_time``). A rule whose
  benchmark file lies elsewhere is not counted;
- verdicts come from the claims table (``results/claims.csv``, columns of
  ``dpsampling.pipeline.claims.CLAIM_COLUMNS``).

``ExperimentSummary`` renders the same facts as reStructuredText for the captions of the
Snakemake HTML report (``snakemake --report``): a rule passes one as a parameter and the caption
template prints ``{{ snakemake.params.summary.parameters }}`` and ``... .claims``. It reads the
files only when the caption is rendered, and Snakemake ignores such objects when deciding what
to rerun.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from dpsampling import __version__
from dpsampling.io import read_metadata, write_text_atomically
from dpsampling.pipeline.claims.base import NOT_AT_SETTING, UNDECIDED

EXPERIMENT_ID = re.compile(r"[a-z]+[0-9]{2}_[a-z0-9_]+")
"""Experiment ids are <paper id>_<name>, e.g. chua24_fig3, chua25_fig1, lebeda24_conj12."""

VERDICTS = ("reproduced", "not_reproduced", "not_run")
FINDING = "finding"  # a claim without a stated number (pipeline.claims.base.FINDING): counted apart
OTHER_VERDICTS = (UNDECIDED, NOT_AT_SETTING, FINDING)  # counted apart, where there are any


def other_counts(verdicts: pd.Series, labels: dict | None = None) -> str:
    """', 2 undecided_at_this_scale, 1 finding (...)' for the verdicts beyond VERDICTS that occur."""
    labels = labels or {FINDING: f"{FINDING} (no number stated by the paper)"}
    counts = verdicts.value_counts()
    return "".join(f", {counts[v]} {labels.get(v, v)}" for v in OTHER_VERDICTS if counts.get(v))
VERSION_KEYS = ("python", "dpsampling", "dp-accounting", "numpy", "numba", "scipy", "pandas", "pyarrow", "snakemake")


def natural_key(name: str):
    """Sort key: chua24_fig2 before chua24_fig10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def flatten(parameters: dict, prefix: str = "") -> dict:
    """{'spec': {'sigmas': [1, 2]}} -> {'spec.sigmas': '[1, 2]'} (values as compact JSON)."""
    flat = {}
    for key, value in parameters.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flat.update(flatten(value, name + "."))
        else:
            flat[name] = json.dumps(value, separators=(", ", ": "))
    return flat


def benchmark_totals(benchmarks_dir, experiment: str) -> dict:
    """Jobs, wall seconds, CPU seconds and peak memory over benchmarks/<experiment>/**/*.tsv."""
    files = sorted(Path(benchmarks_dir, experiment).glob("**/*.tsv"))
    totals = {"jobs": 0, "wall_s": 0.0, "cpu_s": 0.0, "max_rss_mb": 0.0, "files": [str(f) for f in files]}
    for path in files:
        try:
            table = pd.read_csv(path, sep="\t")
        except (OSError, ValueError, pd.errors.ParserError) as error:
            raise ValueError(f"{path} is not a readable Snakemake benchmark file ({error})") from error
        if "s" not in table.columns:
            raise ValueError(f"{path} is not a Snakemake benchmark file (no column 's')")
        numeric = table.apply(pd.to_numeric, errors="coerce")
        totals["jobs"] += 1
        totals["wall_s"] += float(numeric["s"].sum())
        if "cpu_time" in numeric:
            totals["cpu_s"] += float(numeric["cpu_time"].fillna(0).sum())
        if "max_rss" in numeric:
            totals["max_rss_mb"] = max(totals["max_rss_mb"], float(numeric["max_rss"].fillna(0).max()))
    return totals


def format_seconds(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def agreement(verdicts) -> str:
    """Whether the figure says what the paper says, from its claims' verdicts (a list of strings)."""
    verdicts = list(verdicts)
    if not verdicts:
        return "no claims checked"
    counts = {v: verdicts.count(v) for v in set(verdicts)}
    judged = counts.get("reproduced", 0) + counts.get("not_reproduced", 0)
    parts = [f"{counts[v]} {v}" for v in ("reproduced", "not_reproduced", "undecided_at_this_scale",
                                          "not_at_paper_setting", "not_run", "finding") if counts.get(v)]
    if counts.get("not_at_paper_setting"):
        head = "run off the paper's setting: not comparable"
    elif judged == 0:
        head = "not decided"
    elif counts.get("not_reproduced", 0) == 0 and counts.get("undecided_at_this_scale"):
        head = "says what the paper says where decided"
    elif counts.get("not_reproduced", 0) == 0:
        head = "says what the paper says"
    elif counts.get("reproduced", 0) == 0:
        head = "does not say what the paper says"
    else:
        head = "says what the paper says in part"
    return f"{head} ({', '.join(parts)})"


@dataclass
class ExperimentSummary:
    """One experiment's results, figures, time and claims, read lazily from ``root``; its reading
    (the paper's message, ours) where ``messages`` has one (the papers pass theirs in: the report
    sits below the papers and imports none of them).

    ``expected``: the files its target rule needs (None: discover results/<id>/*.parquet and
    figures/<id>.{png,pdf}). Status: ``complete`` (every expected file exists), ``partial``
    or ``not run``.
    """

    experiment: str
    expected: list | None = None
    root: str = "."
    claims_csv: str = "results/claims.csv"
    _claims: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    messages: dict | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:  # stable: Snakemake shows it among a job's params
        return f"ExperimentSummary({self.experiment!r})"

    def _path(self, name) -> Path:
        return Path(self.root, name)

    def files(self) -> list[str]:
        if self.expected is not None:
            return [str(f) for f in self.expected]
        found = sorted(str(p.relative_to(self.root)) for p in self._path("results").joinpath(self.experiment).glob("*.parquet"))
        found += [f"figures/{self.experiment}.{s}" for s in ("png", "pdf") if self._path(f"figures/{self.experiment}.{s}").exists()]
        return found

    def status(self) -> str:
        files = self.files()
        present = [f for f in files if self._path(f).exists()]
        if files and len(present) == len(files):
            return "complete"
        return "partial" if present else "not run"

    def result_files(self) -> list[str]:
        return [f for f in self.files() if f.endswith(".parquet") and self._path(f).exists()]

    def figures(self) -> list[str]:
        return [f for f in self.files() if f.endswith((".png", ".pdf", ".svg")) and self._path(f).exists()]

    def metadata(self) -> dict:
        """{file: {'parameters': ..., 'versions': ...}}; a damaged file raises naming itself."""
        return {f: read_metadata(self._path(f)) for f in self.result_files()}

    def timing(self) -> dict:
        return benchmark_totals(self._path("benchmarks"), self.experiment)

    def claims(self) -> pd.DataFrame:
        if self._claims is None:
            path = self._path(self.claims_csv)
            table = pd.read_csv(path) if path.exists() else pd.DataFrame(columns=["experiment", "verdict"])
            self._claims = table
        return self._claims[self._claims["experiment"] == self.experiment]

    # --- reStructuredText for the HTML report's captions -------------------------------
    @property
    def parameters(self) -> str:
        """RST: the parameters and versions recorded in each result file."""
        blocks = []
        for name, document in self.metadata().items():
            lines = [f"Computed with (``{name}``):", ""]
            lines += [f"- ``{key}`` = {rst_text(value)}" for key, value in flatten(document["parameters"]).items()]
            versions = document.get("versions", {})
            lines += ["", "Versions: " + ", ".join(f"{k} {versions[k]}" for k in VERSION_KEYS if versions.get(k)), ""]
            blocks.append("\n".join(lines))
        return "\n".join(blocks) or f"No result file of {self.experiment} found.\n"

    @property
    def verdicts(self) -> str:
        """RST: every claim of the experiment with paper value, ours and verdict."""
        claims = self.claims()
        if claims.empty:
            return f"No claims of {self.experiment} in ``{self.claims_csv}`` (not yet checked, or none registered).\n"
        counts = claims["verdict"].value_counts()
        lines = [f"Claims ({', '.join(f'{counts.get(v, 0)} {v}' for v in VERDICTS)}"
                 + other_counts(claims["verdict"], {}) + "):", ""]
        for record in claims.to_dict("records"):
            ours = record["our_value"]
            ours = "-" if pd.isna(ours) else f"{float(ours):.6g}"
            note = f" -- {rst_text(record['note'])}" if isinstance(record.get("note"), str) and record["note"] else ""
            lines.append(f"- **{record['verdict']}** ``{record['claim_id']}``: paper {rst_text(record['relation'])} "
                         f"{rst_text(record['paper_value'])}, ours {ours}{note}")
        return "\n".join(lines) + "\n"

    def reading(self) -> tuple[str, str, str] | None:
        """(the paper's message, ours, whether ours says what the paper's says) or None."""
        if self.experiment not in (self.messages or {}):
            return None
        paper, ours = self.messages[self.experiment]
        return paper, ours, agreement(self.claims()["verdict"].tolist())

    @property
    def message(self) -> str:
        """RST: the paper's message in one sentence, ours, and whether they agree (by the claims)."""
        reading = self.reading()
        if reading is None:
            return ""
        paper, ours, verdict = reading
        return (f"**The paper:** {rst_text(paper)}\n\n**Ours:** {rst_text(ours)}\n\n"
                f"**Does ours say what the paper says?** {rst_text(verdict)}.\n")

    def __str__(self) -> str:
        return self.message + "\n" + self.parameters + "\n" + self.verdicts


def rst_text(value) -> str:
    """``value`` as literal reStructuredText: |, *, `, _ and \\ escaped (e.g. "|E|" is not a substitution)."""
    return re.sub(r"([\\`*_|])", r"\\\1", str(value))


def experiment_targets(rules) -> dict:
    """{experiment id: files it needs} of every experiment target rule among Snakemake ``rules``
    (``workflow.rules``): a rule named like an experiment id, with inputs and no outputs. Call it
    when the DAG is built (from an input function), so rules included later count too."""
    return {rule.name: sorted(map(str, rule.input)) for rule in rules
            if EXPERIMENT_ID.fullmatch(rule.name) and rule.input and not rule.output}


def summary_param(messages: dict):
    """A plot rule's param for its report caption (the Snakefile passes the papers' ``messages``,
    {experiment: (the paper's message, ours)}): the experiment (its wildcard, else the folder of its
    first input) summarised from that input file."""

    def experiment_summary(wildcards, input) -> ExperimentSummary:
        experiment = wildcards.get("experiment") or Path(input[0]).parent.name
        return ExperimentSummary(experiment, [str(input[0])], messages=messages)

    return experiment_summary


def discover_experiments(root=".", targets: dict | None = None, claims: pd.DataFrame | None = None) -> list[str]:
    """Experiment ids: workflow targets, claims, and folders of results/ and benchmarks/."""
    names = set(targets or {})
    if claims is not None and "experiment" in claims:
        names |= set(claims["experiment"].dropna())
    for folder in ("results", "benchmarks"):
        base = Path(root, folder)
        if base.is_dir():
            names |= {p.name for p in base.iterdir() if p.is_dir()}
    return sorted((n for n in names if EXPERIMENT_ID.fullmatch(n)), key=natural_key)


def _table(header: list[str], rows: list[list]) -> list[str]:
    def cell(value) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(map(cell, r)) + " |" for r in rows]


def _link(path: str, report_dir: Path, root: Path) -> str:
    """A Markdown link to ``root/path``, relative to the report's folder."""
    return f"[{Path(path).name}]({Path(os.path.relpath(Path(root, path), report_dir)).as_posix()})"


def _summary_lines(summaries, statuses, timings, claims, report_dir, root) -> list[str]:
    counts = pd.Series(list(statuses.values()), dtype=object).value_counts()
    lines = ["## Summary", "", f"{len(summaries)} experiments: "
             + ", ".join(f"{counts.get(k, 0)} {k}" for k in ("complete", "partial", "not run")) + "."]
    if claims is not None:
        verdicts = claims["verdict"].value_counts()
        lines.append(f"{len(claims)} claims: " + ", ".join(f"{verdicts.get(v, 0)} {v}" for v in VERDICTS)
                     + other_counts(claims["verdict"]) + ".")
    else:
        lines.append("Claims not checked yet (no `results/claims.csv`: run `snakemake claims`).")
    wall, cpu = sum(t["wall_s"] for t in timings.values()), sum(t["cpu_s"] for t in timings.values())
    lines += [f"Compute time of the benchmarked jobs: {format_seconds(wall)} wall, {cpu / 3600:.3g} CPU hours.", ""]
    rows = []
    for s in summaries:
        t, mine = timings[s.experiment], s.claims()
        tally = "/".join(str(int((mine["verdict"] == v).sum())) for v in VERDICTS) if not mine.empty else "-"
        tally += "".join(f" (+{int((mine['verdict'] == v).sum())} {v})" for v in OTHER_VERDICTS
                         if not mine.empty and (mine["verdict"] == v).any())
        figures = ", ".join(_link(f, report_dir, root) for f in s.figures() if f.endswith(".png")) or "-"
        rows.append([s.experiment, statuses[s.experiment], tally, t["jobs"], format_seconds(t["wall_s"]),
                     f"{t['cpu_s']:.0f}", f"{t['max_rss_mb']:.0f}", figures])
    return lines + _table(["experiment", "status", "claims ok/not/not run", "jobs", "wall h:m:s", "CPU s", "peak MB",
                           "figures"], rows)


def _reading_lines(summaries, report_dir, root) -> list[str]:
    """Per figure: the paper's message, ours, and whether ours says what the paper's says."""
    rows = []
    for s in summaries:
        reading = s.reading()
        if reading is None:
            continue
        figures = ", ".join(_link(f, report_dir, root) for f in s.figures() if f.endswith(".png")) or "-"
        rows.append([f"`{s.experiment}`", reading[0], reading[1], reading[2], figures])
    if not rows:
        return []
    return ["", "## Does each figure say what the paper says?", "",
            *_table(["experiment", "the paper says", "ours says", "verdict (from its claims)", "figure"], rows)]


def _claims_lines(claims, report_dir, root) -> list[str]:
    """The discrepancies (not_reproduced claims with their reasons), the undecided claims and
    those run off the paper's setting, then the whole table."""
    lines = ["", "## Paper discrepancies found", ""]
    if claims is not None:
        bad = claims[claims["verdict"] == "not_reproduced"]
        if bad.empty:
            lines.append("No checked claim failed to reproduce.")
        for record in bad.to_dict("records"):
            lines.append(f"- `{record['claim_id']}` ({record['quantity']}): paper {record['relation']} "
                         f"{record['paper_value']}, ours {record['our_value']:.6g}. {record['note']}")
        for verdict, title in ((UNDECIDED, "Undecided at this scale"), (NOT_AT_SETTING, "Run off the paper's setting")):
            rows = claims[claims["verdict"] == verdict]
            if not rows.empty:
                lines += ["", f"## {title}", ""]
                lines += [f"- `{r['claim_id']}` ({r['quantity']}): paper {r['relation']} {r['paper_value']}, ours "
                          f"{r['our_value']:.6g}. {r['note']}" for r in rows.to_dict("records")]
    lines += ["", f"Explanations: {_link('docs/REPRODUCTION.md', report_dir, root)}.", ""]
    if claims is not None:
        cells = [[f"{v:.6g}" if isinstance(v, float) else v for v in r.values()] for r in claims.to_dict("records")]
        lines += ["## Claims", "", *_table(list(claims.columns), cells), ""]
    return lines


def _experiment_lines(s: ExperimentSummary, status: str, timing: dict, report_dir, root) -> list[str]:
    lines = [f"### {s.experiment}", ""]
    reading = s.reading()
    if reading is not None:
        lines += [f"The paper: {reading[0]}", "", f"Ours: {reading[1]}", "", f"Verdict: {reading[2]}.", ""]
    lines.append(f"Status: **{status}**.")
    missing = [f for f in s.files() if not (root / f).exists()]
    if missing:
        lines.append("Missing: " + ", ".join(f"`{f}`" for f in missing) + ".")
    if timing["jobs"]:
        lines.append(f"Time: {timing['jobs']} job(s), {format_seconds(timing['wall_s'])} wall, "
                     f"{timing['cpu_s']:.1f} CPU seconds, peak {timing['max_rss_mb']:.0f} MB.")
    if s.figures():
        lines.append("Figures: " + ", ".join(_link(f, report_dir, root) for f in s.figures()) + ".")
    lines.append("")
    for name, document in s.metadata().items():
        lines += [f"{_link(name, report_dir, root)} ({_row_count(root / name)} rows) was computed with:", ""]
        lines += _table(["parameter", "value"], [[f"`{k}`", v] for k, v in flatten(document["parameters"]).items()])
        versions = document.get("versions", {})
        lines += ["", "Versions: " + ", ".join(f"{k} {versions[k]}" for k in VERSION_KEYS if versions.get(k)) + ".", ""]
    mine = s.claims()
    if not mine.empty:
        lines += ["Claims: " + ", ".join(f"`{r['claim_id']}` {r['verdict']}" for r in mine.to_dict("records")) + ".", ""]
    return lines


def report_markdown(report_path, root=".", targets: dict | None = None, claims: pd.DataFrame | None = None,
                    configfiles: list | None = None, messages: dict | None = None) -> str:
    """The text of REPORT.md; ``claims`` defaults to ``results/claims.csv`` when it exists;
    ``messages``: {experiment: (the paper's message, ours)} (the papers' ``messages``; none: no readings)."""
    root, report_dir = Path(root), Path(report_path).parent
    if claims is None:
        path = root / "results" / "claims.csv"
        claims = pd.read_csv(path) if path.exists() else None
    if claims is not None:
        claims = claims.fillna({"note": ""})
    empty = pd.DataFrame(columns=["experiment", "verdict"])
    summaries = [ExperimentSummary(name, (targets or {}).get(name), str(root), _claims=empty if claims is None else claims,
                                   messages=messages)
                 for name in discover_experiments(root, targets, claims)]
    statuses = {s.experiment: s.status() for s in summaries}
    timings = {s.experiment: s.timing() for s in summaries}
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    config = f" (config: {', '.join(f'`{c}`' for c in configfiles)})" if configfiles else ""
    lines = ["# Reproduction report", "",
             f"Written {now} by dpsampling {__version__} from the files in results/, figures/ and benchmarks/{config}.",
             "Parameters, seeds and versions below are those recorded in each result file; times are the sum of",
             "each experiment's `benchmarks/<experiment>/*.tsv` (jobs without a benchmark are not counted).", ""]
    lines += _summary_lines(summaries, statuses, timings, claims, report_dir, root)
    lines += _reading_lines(summaries, report_dir, root)
    lines += _claims_lines(claims, report_dir, root)
    lines += ["## Experiments", ""]
    for s in summaries:
        lines += _experiment_lines(s, statuses[s.experiment], timings[s.experiment], report_dir, root)
    return "\n".join(lines) + "\n"


def _row_count(path: Path) -> int:
    try:
        return pq.ParquetFile(path).metadata.num_rows
    except Exception as error:  # pyarrow raises several types for damaged files
        raise ValueError(f"{path} is not a readable Parquet file ({error})") from error


def write_report(report_path, root=".", targets: dict | None = None, claims: pd.DataFrame | None = None,
                 configfiles: list | None = None, messages: dict | None = None) -> Path:
    """Write REPORT.md atomically (a temporary file next to it, then rename)."""
    report_path = Path(report_path)
    text = report_markdown(report_path, root, targets, claims, configfiles, messages)
    return write_text_atomically(report_path, text)
