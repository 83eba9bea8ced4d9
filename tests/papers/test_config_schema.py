"""The config schema: names shared with the code, every key described and defaulted, configs valid."""

from pathlib import Path

import pytest
import yaml

from dpsampling.pipeline.config import ConfigError, check_config
from dpsampling.samplers import GENERATORS, PAPER_RATE_BASED, SAMPLERS
from dpsampling.training.model import MODELS
from dpsampling.training.sgd import OPTIMIZERS

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "workflow" / "schemas" / "config.schema.yaml"
SCHEMA = yaml.safe_load(SCHEMA_PATH.read_text())


def test_name_lists_are_the_codes():
    samplers = tuple(SCHEMA["definitions"]["sampler"]["enum"])  # registry names, in its order
    assert samplers == tuple(name for name in SAMPLERS if name in samplers) and samplers
    fig1 = SCHEMA["properties"]["chua25"]["properties"]["fig1"]["properties"]
    assert tuple(fig1["generators"]["items"]["enum"]) == GENERATORS
    addremove = SCHEMA["properties"]["lebeda24"]["properties"]["addremove"]["properties"]
    assert tuple(addremove["samplers"]["items"]["enum"]) == PAPER_RATE_BASED  # lebeda24's: the rate-based ones
    assert tuple(fig1["optimizer"]["enum"]) == OPTIMIZERS
    assert tuple(fig1["model"]["enum"]) == MODELS


def _walk(node, path=""):
    if isinstance(node, dict):
        if "properties" in node:
            for key, child in node["properties"].items():
                yield f"{path}.{key}".lstrip("."), child
                yield from _walk(child, f"{path}.{key}")
        for key in ("definitions",):
            for name, child in node.get(key, {}).items():
                yield from _walk(child, f"#{name}")


def test_every_key_is_described_and_closed():
    for path, node in _walk(SCHEMA):
        target = SCHEMA["definitions"][node["$ref"].split("/")[-1]] if "$ref" in node else node
        assert "description" in node or "description" in target, f"{path} has no description"
        if target.get("type") == "object":
            assert target.get("additionalProperties") is False, f"{path} accepts unknown keys"


def test_top_level_keys_have_defaults():
    for path, node in _walk(SCHEMA):
        if "." not in path and not path.startswith("#"):
            assert "default" in node, f"{path} has no default"


@pytest.mark.parametrize("name", ["config/config.yaml", "config/paper.yaml", ".test/config/config.yaml"])
def test_shipped_configs_are_valid(name):
    check_config(yaml.safe_load((ROOT / name).read_text()), SCHEMA_PATH)


def test_an_empty_config_is_valid_and_a_typo_is_not():
    check_config({}, SCHEMA_PATH)
    with pytest.raises(ConfigError, match="unknown key 'chua42'"):
        check_config({"chua42": {}}, SCHEMA_PATH)


def test_nested_config_overrides_are_read_as_the_schemas_types():
    """Snakemake's --config reads nested values with YAML's BaseLoader (all strings): the schema's
    types are applied, so an override means what it says (issue 33)."""
    from snakemake.cli import parse_config
    from snakemake.utils import update_config

    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    override = parse_config(['chua24={"fig4": {"steps": 50000, "sigmas": [0.5, 1.5]}}'])
    assert override["chua24"]["fig4"]["steps"] == "50000"  # what Snakemake hands over
    update_config(config, override)  # what Snakemake does with the config file and --config
    check_config(config, SCHEMA_PATH)
    assert config["chua24"]["fig4"]["steps"] == 50000 and config["chua24"]["fig4"]["sigmas"] == [0.5, 1.5]
    config["chua24"]["fig4"]["steps"] = "fifty"
    with pytest.raises(ConfigError, match="chua24.fig4.steps: must be of type integer; got 'fifty'"):
        check_config(config, SCHEMA_PATH)
