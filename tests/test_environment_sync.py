"""environment.yml (conda users) lists the same dependencies as pyproject.toml."""

import re
import tomllib

import yaml
from support import ROOT



def _norm(spec: str) -> str:
    return re.sub(r"\s+", "", spec).lower().replace("_", "-")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = {_norm(s) for s in project["dependencies"] + extras["workflow"] + extras["report"] + extras["sdcmicro"] + extras["formats"] + extras["test"]}
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    listed = {_norm(s) for s in env["dependencies"] if isinstance(s, str) and not s.startswith(("python", "pip"))}
    assert listed == wanted
    python = [s for s in env["dependencies"] if isinstance(s, str) and s.startswith("python")]
    assert python == [f"python{project['requires-python']}"]
