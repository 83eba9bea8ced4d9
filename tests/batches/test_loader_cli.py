"""BatchSampler.accounting().cli_args() are accepted by ``dpsampling account`` and describe the run."""

import json

import pytest
from answer_schema import check_answer

from dpsampling.batches import BatchSampler
from dpsampling.cli import main


@pytest.mark.parametrize("sampler", ["poisson", "deterministic"])
def test_cli_args_are_accepted_by_dpsampling_account(sampler, capsys):
    a = BatchSampler(sampler, 100, 20, epochs=2).accounting()
    assert main(["account", *a.cli_args(), "--sigma", "2", "--epsilon", "1", "--json"]) == 0
    inputs = check_answer(json.loads(capsys.readouterr().out))["inputs"]
    assert (inputs["sampler"], inputs["dataset_size"], inputs["batch_size"], inputs["epochs"]) == (sampler, 100, 20, 2)
