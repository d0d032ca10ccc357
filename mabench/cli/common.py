"""What every command shares: the declaration of a command (:class:`Command`), the parser that
reports a usage error in one line, the path rule that reads each command's declared inputs and
outputs, and the helpers that parse options and print JSON."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass

from mabench.errors import UserError


def _no_paths(args) -> tuple[list, list]:
    return [], []


@dataclass
class Command:
    """One ``mabench`` command, declared beside its body: its name and help, the function that adds its
    arguments, the body, and ``paths(args) -> (outputs, inputs)`` as (option, path) pairs for the path
    rule. ``all_or_nothing``: every file it writes is committed together (`batch` commits per cell).
    ``passes_through``: every word after the command's name is handed on as it is (`workflow` passes them
    to Snakemake), options included, so the command declares only a REMAINDER positional."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    body: Callable[[argparse.Namespace], None]
    paths: Callable[[argparse.Namespace], tuple[list, list]] = _no_paths
    all_or_nothing: bool = True
    passes_through: bool = False

    def parser_options(self) -> dict:
        # no prefix character: `-n` or `--cores 4` is a word to pass on, not an unknown option of ours
        return {"prefix_chars": "\0", "add_help": False} if self.passes_through else {}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        raise UserError(f"{self.prog}: {message} (see `{self.prog} --help`)")


def guard_paths(command: Command, args) -> None:
    """The path rule (docs/contract.md): no output of a command may be one of its inputs, after
    resolving symbolic and hard links, or a folder. Checked before any work; outputs written into a folder
    (tables, figures, report) are checked again as they are written."""
    from mabench import io

    outs, ins = command.paths(args)
    io.check_clashes([o for o in outs if o[1]], ins)
    io.protect(ins)


def parse_params(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UserError(f"--param {item!r} must be NAME=VALUE, e.g. --param tail=2k")
        key, value = item.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def parse_options(items: list[str]) -> dict:
    """--option NAME=VALUE, VALUE parsed as JSON when it is JSON (lists, numbers), else a string."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UserError(f"--option {item!r} must be NAME=VALUE, e.g. --option id_p=[1,2,3]")
        key, value = item.split("=", 1)
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value.strip()
    return out


PENDING: list[str] = []  # what a command prints; written only after its files are committed


def print_json(obj) -> None:
    PENDING.append(json_line(obj))


def json_line(obj) -> str:
    """One line of strict JSON (a NaN or infinity is a bug: it would make the line unreadable)."""
    return json.dumps(obj, sort_keys=False, allow_nan=False) + "\n"


def existing(what: str, path) -> list[tuple[str, str]]:
    """(what, path) when ``path`` names an existing file or folder (a catalog or generator name does not)."""
    import os

    return [(what, str(path))] if path and os.path.exists(str(path)) else []


def results_inputs(what: str, path) -> list[tuple[str, str]]:
    """A results table given as a file or as a folder holding results.parquet."""
    import os

    if path and os.path.isdir(str(path)):
        return [(what, os.path.join(str(path), sub)) for sub in ("results.parquet", "results/results.parquet")
                if os.path.isfile(os.path.join(str(path), sub))]
    return existing(what, path)


def finite(option: str, value: float, low: float, strict: bool = False, high: float | None = None) -> float:
    """A numeric option: finite and in range (nan or inf would make a gate never fail, or run forever)."""
    import math

    if not math.isfinite(value) or (value <= low if strict else value < low) or (high is not None and value > high):
        bound = f"{'>' if strict else '>='} {low:g}" + (f" and <= {high:g}" if high is not None else "")
        raise UserError(f"{option} {value!r} must be a finite number {bound}")
    return value


EXTRAS = {"report": ("matplotlib", "seaborn"), "workflow": ("snakemake",)}


def require_extra(command: str, extra: str) -> None:
    """One clear line when a command needs an extra that is not installed."""
    import importlib.util

    for module in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise UserError(f"mabench {command} needs the {extra} extra: pip install 'mabench[{extra}]'")
