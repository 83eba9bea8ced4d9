"""Strict YAML input files: what the library reads from a user's file (schedules, config files).

``read_yaml(path, what)`` returns the document, or raises ``InputFileError`` (a ``ValueError``)
in one line naming the file (and the key or line) for each way a file can be other than meant:

- missing, a directory, or not a regular file;
- not text: bytes that are not UTF-8, or a NUL byte (an executable, an image, a Parquet file);
- not valid YAML (the line of the first problem);
- a duplicated key in one mapping (YAML parsers keep the last one silently: a schedule with two
  ``phases:`` lists would be accounted for the second only); a key merged in (``<<: *anchor``) and
  given again is YAML's override, not a duplicate.
"""

from __future__ import annotations

from pathlib import Path

import yaml


class InputFileError(ValueError):
    """An input file that cannot be used; the message is one line naming the file."""


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    # the mapping's own keys only: a key merged in by ``<<: *anchor`` and given again is YAML's
    # override of the merged value (the spec's merge), not a duplicate
    own = [key_node for key_node, _ in node.value if key_node.tag != "tag:yaml.org,2002:merge"]
    loader.flatten_mapping(node)
    seen: dict = {}
    for key_node in own:
        key = loader.construct_object(key_node, deep=deep)
        line = key_node.start_mark.line + 1
        try:
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} ({_where(seen[key], line)}; YAML would keep the last "
                                "silently)", key_node.start_mark)
            seen[key] = line
        except TypeError:  # an unhashable key: construct_mapping refuses it with its own message
            continue
    return loader.construct_mapping(node, deep=deep)


def _where(first: int, second: int) -> str:
    return f"twice on line {first}" if first == second else f"lines {first} and {second}"


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def read_text_file(path, what: str) -> str:
    """The text of ``path`` (UTF-8), or one line, led by the path, saying why it is not a
    readable text file (``what`` names the file: "schedule file", "config file")."""
    path = Path(path)
    if path.is_dir():
        raise InputFileError(f"{path}: a directory, not a {what}")
    if not path.exists():
        raise InputFileError(f"{path}: {what} not found")
    if not path.is_file():
        raise InputFileError(f"{path}: not a regular file; a {what} is a YAML text file")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputFileError(f"{path}: {what} cannot be read ({error.strerror})") from None
    try:
        if b"\0" in data:
            raise UnicodeDecodeError("utf-8", data, data.index(b"\0"), data.index(b"\0") + 1, "NUL byte")
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputFileError(f"{path}: not a text file (byte {error.start} is not UTF-8 text); a {what} is a YAML "
                             "text file") from None


def read_yaml(path, what: str):
    """The YAML document of ``path`` (module docstring); ``what`` names the file in messages."""
    text = read_text_file(path, what)
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(error, "problem", None) or "not valid YAML"
        reason = problem if problem.startswith("duplicate key") else f"not valid YAML: {problem}"
        raise InputFileError(f"{path}{line}: {reason}") from None


__all__ = ["InputFileError", "read_text_file", "read_yaml"]
