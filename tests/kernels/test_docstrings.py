"""Every public kernel function (no leading underscore, at the top of a module under mabench/kernels/)
carries a numpydoc docstring with Parameters and Returns sections, and the Examples in them run.

The functions are found by reading the sources (ast), so a kernel added without its docstring fails
here without being imported; the examples are run by doctest from each function's own docstring
(Numba's dispatchers hide their docstrings from doctest's module search).
"""

from __future__ import annotations

import ast
import doctest
import importlib
import pathlib
import re

import pytest

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "mabench" / "kernels"
SECTION = r"^\s*{}\n\s*-{{{}}}\s*$"


def _public_functions():
    for path in sorted(KERNELS.rglob("*.py")):
        module = "mabench." + ".".join(path.relative_to(KERNELS.parent).with_suffix("").parts)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                yield module, node.name, ast.get_docstring(node) or ""


PUBLIC = list(_public_functions())


def _has_section(doc: str, name: str) -> bool:
    return re.search(SECTION.format(name, len(name)), doc, flags=re.M) is not None


def test_the_kernels_are_found():
    assert len(PUBLIC) > 150
    assert ("mabench.kernels.core.select", "keep_smallest") in {(m, f) for m, f, _ in PUBLIC}


@pytest.mark.parametrize("module,name,doc", PUBLIC, ids=[f"{m.split('kernels.')[1]}.{f}" for m, f, _ in PUBLIC])
def test_public_kernel_has_parameters_and_returns(module, name, doc):
    missing = [s for s in ("Parameters", "Returns") if not _has_section(doc, s)]
    assert not missing, f"{module}.{name}: its docstring has no numpydoc section {', '.join(missing)}"


EXAMPLES = [(m, f, d) for m, f, d in PUBLIC if _has_section(d, "Examples")]


def test_some_kernels_have_examples():
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize("module,name,doc", EXAMPLES, ids=[f"{m.split('kernels.')[1]}.{f}" for m, f, _ in EXAMPLES])
def test_kernel_examples_run(module, name, doc):
    mod = importlib.import_module(module)
    test = doctest.DocTestParser().get_doctest(doc, dict(vars(mod)), f"{module}.{name}", module, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert test.examples, "an Examples section without an example"


def test_the_check_fails_on_a_docstring_without_sections():
    assert not _has_section("Sum of x.\n\nParameters\n----------\nx : float\n", "Returns")
    assert not _has_section("Returns: a float.", "Returns")
    assert _has_section("Sum.\n\n    Returns\n    -------\n    float\n", "Returns")
