"""Citations stand alone: everything the repository says cites the seed documents and its own docs.

A reader of the project has the five seed files (cited by file name and section or table) and the
repository; nothing else. So no tracked file may point to implementation notes that live outside it,
every note of the published-values registry and every algorithm citation names a seed file and a
document under docs/, and every docs/ file (and #anchor) they name exists.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from mabench import discovery
from mabench.report import published
from support import ROOT

SEED_FILE = re.compile(r"\b\d{3}_[0-9a-f]{16}\.txt\b")
DOC_REF = re.compile(r"\bdocs/[A-Za-z0-9_./-]+\.md(?:#[a-z0-9_-]+)?")
# Written in pieces so that this file does not match itself.
OUTSIDE = re.compile("|".join([
    r"papers" + r"\.md", r"thesis_ch3" + r"_ch6", r"thesis_ch4" + r"_ch5", r"anchors" + r"\.md",
    r"\bspec" + r" §", r"\.\./" + r"shared", r"/work/" + r"shared", r"thesis" + r" spec", r"project" + r" spec",
    r"\bthe" + r" spec\b(?!\s*(string|strings|argument|of the data|\"))", r"spec" + r"'s\b", r"during" + r" planning",
    r"\[" + r"VERIFIED\]", r"\[" + r"RECON\]",
]), re.IGNORECASE)
BINARY = (".rda", ".RData", ".png", ".pdf", ".parquet", ".gz", ".zip", ".xlsx", ".xls", ".sav")


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / p for p in out.splitlines() if p and not p.endswith(BINARY)]


def test_no_tracked_file_cites_material_outside_the_repository():
    bad = []
    for path in _tracked():
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for no, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()[:140]}")
    assert not bad, ("cite the seed file (name + section/table) and docs/ instead of notes outside the "
                     "repository or how a finding was made:\n" + "\n".join(bad))


def test_the_outside_pattern_catches_what_it_must():
    for text in ["see papers" + ".md §2.2", "(thesis spe" + "c §7)", "spe" + "c §6.4", "found during" + " planning",
                 "thesis_ch4" + "_ch5.md §5", "../" + "shared/spec"]:
        assert OUTSIDE.search(text), text
    for text in ["DATASET spec string", "004_d1273daa16c98592.txt §IV", "docs/findings.md#sim-3",
                 "the sp" + "ec of the data"]:
        assert not OUTSIDE.search(text), text


def _anchors(doc: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown file."""
    out = set()
    for line in doc.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#+\s+(.*)", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(slug)
    return out


def _check_doc_refs(text: str, where: str) -> list[str]:
    problems = []
    for ref in DOC_REF.findall(text):
        path, _, anchor = ref.partition("#")
        doc = ROOT / path
        if not doc.is_file():
            problems.append(f"{where}: {ref}: no such file")
        elif anchor and anchor not in _anchors(doc):
            problems.append(f"{where}: {ref}: no heading with that anchor")
    return problems


def test_every_registry_note_cites_a_seed_file_and_the_docs():
    registry = published.load()
    problems = []
    for line, (note, seed) in enumerate(zip(registry["note"], registry["seed_file"]), 2):
        note = "" if pd.isna(note) else str(note)
        if not note:
            continue
        if not SEED_FILE.search(note):
            problems.append(f"registry/published.csv:{line}: note names no seed file: {note[:100]}")
        if not DOC_REF.search(note):
            problems.append(f"registry/published.csv:{line}: note names no docs/ file: {note[:100]}")
        problems += _check_doc_refs(note, f"registry/published.csv:{line}")
    assert not problems, "\n".join(problems)


def test_every_algorithm_citation_names_a_seed_file_and_its_doc():
    problems = []
    for name, algo in sorted(discovery.algorithms().items()):
        if not SEED_FILE.search(algo.citation):
            problems.append(f"{name}: citation names no seed file: {algo.citation}")
        if not DOC_REF.search(algo.citation):
            problems.append(f"{name}: citation names no docs/algorithms/ file: {algo.citation}")
        problems += _check_doc_refs(algo.citation, f"algorithm {name}")
    assert not problems, "\n".join(problems)


def test_doc_links_in_docs_resolve():
    problems = []
    for doc in sorted((ROOT / "docs").rglob("*.md")):
        text = doc.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", text):
            if target.startswith(("http://", "https://")):
                continue
            if not (doc.parent / target).resolve().is_file():
                problems.append(f"{doc.relative_to(ROOT)}: link to {target}: no such file")
        for target, anchor in re.findall(r"\]\(([^)#\s]*\.md)#([a-z0-9_-]+)\)", text):
            path = (doc.parent / target).resolve()
            if path.is_file() and anchor not in _anchors(path):
                problems.append(f"{doc.relative_to(ROOT)}: link to {target}#{anchor}: no such heading")
    assert not problems, "\n".join(problems)
