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
    wanted = {_norm(s) for s in project["dependencies"] + extras["workflow"] + extras["report"] + extras["sdcmicro"] + extras["dask"] + extras["test"]}
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    listed = {_norm(s) for s in env["dependencies"] if isinstance(s, str) and not s.startswith(("python", "pip"))}
    assert listed == wanted
    python = [s for s in env["dependencies"] if isinstance(s, str) and s.startswith("python")]
    assert python == [f"python{project['requires-python']}"]


def _lock_pins() -> dict[str, tuple[str, str]]:
    """name -> (version, the pin's block of text) of requirements.lock."""
    pins, text = {}, (ROOT / "requirements.lock").read_text()
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        m = re.match(r"([A-Za-z0-9_.\-]+)==([^\s;\\]+)", block)
        if m:
            pins[_norm(m.group(1))] = (m.group(2), block)
    return pins


def test_the_lock_pins_every_dependency_within_the_ranges_of_pyproject_with_hashes():
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    pins = _lock_pins()
    assert pins, "requirements.lock lists no pinned package"
    for name, (version, block) in pins.items():
        assert "--hash=sha256:" in block, f"{name} is pinned without a hash"
    for spec in project["dependencies"] + [s for key in ("workflow", "report", "sdcmicro", "dask", "test", "slurm")
                                           for s in extras[key]]:
        req = Requirement(spec)
        name = _norm(req.name)
        assert name in pins, f"{req.name} is not in requirements.lock: run `make lock`"
        assert req.specifier.contains(pins[name][0], prereleases=True), (
            f"requirements.lock pins {req.name}=={pins[name][0]} outside pyproject's {req.specifier}: run `make lock`")


def test_provenance_names_the_lock_the_environment_was_installed_from():
    import hashlib

    from mabench.bench import provenance

    rec = provenance.record()
    assert rec["lock_sha256"] == hashlib.sha256((ROOT / "requirements.lock").read_bytes()).hexdigest()
    assert rec["version_scipy"] != "absent" and rec["version_scikit-learn"] != "absent"
