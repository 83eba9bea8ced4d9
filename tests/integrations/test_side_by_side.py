"""The side-by-side table of docs/INTEGRATIONS.md runs (on a small run) and prints well-formed rows."""

from dpsampling.integrations import side_by_side


def test_side_by_side_rows_on_a_small_run(capsys):
    assert side_by_side.main(["--dataset-size", "1000", "--batch-size", "50", "--epochs", "2", "--sigma", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| accountant, event | eps | time |" and len(lines) >= 20
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines)
    assert any(line.startswith("| ours, kept bins: bracket | [") for line in lines)
