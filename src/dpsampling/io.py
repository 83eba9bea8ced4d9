"""Parquet files that record how they were computed.

Every table is written with a JSON document under the schema metadata key ``dpsampling``:
the parameters it was computed from, plus the package and dependency versions. Writes are
atomic (``write_atomically``: a temporary file in the same folder, then ``os.replace``; the one
atomic write of the package and its scripts), so an interrupted job leaves no half-written
result. ``read_table`` refuses a file that is not readable Parquet or
whose recorded parameters differ from the ones the caller expects; ``result_file_problem`` says,
from a file's Parquet footer and metadata alone (no data read), whether it is damaged or foreign
(what the workflow checks before every run, ``dpsampling.pipeline.recovery``).
"""

from __future__ import annotations

import json
import os
import platform
import secrets
from contextlib import contextmanager
from importlib import metadata as importlib_metadata
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from dpsampling import __version__

METADATA_KEY = b"dpsampling"
PARQUET_MAGIC = b"PAR1"  # the first and last four bytes of every Parquet file
DEPENDENCIES = ("numpy", "scipy", "pandas", "pyarrow", "numba", "dp-accounting", "matplotlib", "snakemake")


def environment_versions() -> dict:
    """Versions of Python, this package and its dependencies (None when not installed)."""
    versions = {"python": platform.python_version(), "dpsampling": __version__}
    for name in DEPENDENCIES:
        try:
            versions[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def _jsonable(value):
    """Turn numpy scalars/arrays and tuples into plain JSON values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def check_output_dir(directory, create: bool = True) -> Path:
    """Make sure ``directory`` can hold new files (creating it unless ``create`` is False, in
    which case its nearest existing ancestor must be writable); PermissionError or
    NotADirectoryError, one line naming it, otherwise. Called before anything is written."""
    directory = Path(directory)
    existing = directory
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        where = "is" if existing == directory else f"cannot be created: {existing} is"
        raise NotADirectoryError(f"output directory {directory} {where} a file, not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        what = "is not writable" if existing == directory else f"cannot be created: {existing} is not writable"
        raise PermissionError(f"output directory {directory} {what}")
    if create:
        directory.mkdir(parents=True, exist_ok=True)
    return directory


def write_atomically(path, write) -> Path:
    """Call ``write(tmp)`` on a fresh temporary file in ``path``'s folder (created if missing),
    then rename it to ``path`` (``os.replace``, atomic on POSIX): readers see the old file or
    the whole new one, never a part. On any error the temporary file is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:  # a fresh name; mode 0o666 less the umask, as a plain open() would give
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
        try:
            os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
            break
        except FileExistsError:
            continue
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


@contextmanager
def atomic_paths(*paths):
    """Temporary paths in the folders of ``paths`` (hidden, same suffix: ``.<stem>.<hex>.tmp<suffix>``,
    so that a writer choosing its format by the suffix, like matplotlib, still can), renamed over
    ``paths`` once the block completes; removed if it fails. For writers that take a path
    (figures): readers see the old files or the new ones, never a part."""
    finals = [Path(path) for path in paths]
    temporaries = []
    for final in finals:
        final.parent.mkdir(parents=True, exist_ok=True)
        temporaries.append(final.with_name(f".{final.stem}.{secrets.token_hex(8)}.tmp{final.suffix}"))
    try:
        yield temporaries
        for temporary, final in zip(temporaries, finals):
            os.replace(temporary, final)
    finally:
        for temporary in temporaries:
            temporary.unlink(missing_ok=True)


def write_text_atomically(path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (``write_atomically``)."""
    return write_atomically(path, lambda tmp: Path(tmp).write_text(text))


def write_table(frame: pd.DataFrame, path, parameters: dict) -> Path:
    """Write ``frame`` to ``path`` atomically with ``parameters`` and versions in its metadata."""
    path = Path(path)
    check_output_dir(path.parent)
    document = {"parameters": _jsonable(parameters), "versions": environment_versions()}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    schema_metadata = dict(table.schema.metadata or {})
    schema_metadata[METADATA_KEY] = json.dumps(document, sort_keys=True).encode()
    table = table.replace_schema_metadata(schema_metadata)
    return write_atomically(path, lambda tmp: pq.write_table(table, tmp))


def read_metadata(path) -> dict:
    """The ``{"parameters": ..., "versions": ...}`` document of a file written by write_table."""
    path = Path(path)
    try:
        schema = pq.read_schema(path)
    except FileNotFoundError:
        raise
    except Exception as error:  # pyarrow raises several types for damaged files
        raise ValueError(f"{path} is not a readable Parquet file ({error})") from error
    raw = (schema.metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise ValueError(f"{path} has no dpsampling metadata; it was not written by this package")
    return json.loads(raw)


def result_file_problem(path) -> str | None:
    """Why ``path`` cannot be a result of this package, or None when it can: checked from its
    Parquet header, footer and ``dpsampling`` metadata only (cheap: no data page is read).

    Damaged: not Parquet (no PAR1 header), truncated (no PAR1 footer, or a footer longer than the
    file), or a footer pyarrow cannot parse. Foreign: readable Parquet without this package's
    metadata, or with metadata that is not its JSON document. A file whose data pages alone are
    damaged passes (its reader fails, naming it)."""
    path = Path(path)
    size = path.stat().st_size
    if size < 12:
        return f"damaged: {size} bytes, too short for Parquet"
    with path.open("rb") as handle:
        head = handle.read(4)
        handle.seek(size - 8)
        tail = handle.read(8)
    if head != PARQUET_MAGIC:
        return "damaged: not a Parquet file (no PAR1 header)"
    if tail[4:] != PARQUET_MAGIC:
        return "damaged: truncated (no Parquet footer)"
    footer = int.from_bytes(tail[:4], "little")
    if footer + 12 > size:
        return f"damaged: truncated (a {footer}-byte footer in a {size}-byte file)"
    try:
        document = read_metadata(path)
    except json.JSONDecodeError:
        return "foreign: its dpsampling metadata is not JSON"
    except ValueError as error:
        foreign = "no dpsampling metadata" in str(error)
        return "foreign: no dpsampling metadata (not written by this package)" if foreign else \
            "damaged: unreadable Parquet footer"
    if not isinstance(document, dict) or not isinstance(document.get("parameters"), dict):
        return "foreign: its dpsampling metadata records no parameters"
    return None


def read_table(path, expected_parameters: dict | None = None) -> tuple[pd.DataFrame, dict]:
    """Read a table and its metadata; refuse it if its parameters differ from ``expected_parameters``.

    Only the keys of ``expected_parameters`` are compared, after the same JSON normalisation
    used when writing (so tuples and lists compare equal).
    """
    path = Path(path)
    document = read_metadata(path)
    if expected_parameters is not None:
        recorded = document["parameters"]
        wanted = json.loads(json.dumps(_jsonable(expected_parameters)))
        mismatched = {k: (recorded.get(k), v) for k, v in wanted.items() if recorded.get(k) != v}
        if mismatched:
            detail = "; ".join(f"{k}: file has {a!r}, requested {b!r}" for k, (a, b) in mismatched.items())
            raise ValueError(f"{path} was computed with other parameters ({detail})")
    try:
        frame = pq.read_table(path).to_pandas()
    except Exception as error:
        raise ValueError(f"{path} is not a readable Parquet file ({error})") from error
    return frame, document
