"""Sentences of docs/architecture.md and docs/guide.md that can be checked against the code.

Each test names the sentence it holds to the code; when the code changes, the test fails until
the sentence is made true again.
"""

from __future__ import annotations

import ast
import re

from tests.helpers import PROJECT_ROOT
from verify.report.claims import CLAIMS

ARCHITECTURE = (PROJECT_ROOT / "docs" / "architecture.md").read_text()
GUIDE = (PROJECT_ROOT / "docs" / "guide.md").read_text()


def test_claim_counts_in_the_guide_are_the_registry_size():
    """'17/17 claims pass', '(3/17 claims, ...)', 'of the 17 claims'."""
    counts = [int(n) for n in re.findall(r"\d+/(\d+) claims", GUIDE)]
    counts += [int(n) for n in re.findall(r"of the (\d+) claims", GUIDE)]
    assert counts and set(counts) == {len(CLAIMS)}


def test_the_engine_packages_are_the_ones_named():
    """'`numeric/` holds `xor/`, `boolean/` and `transformer/`'."""
    named = re.search(r"`numeric/` holds ((?:`\w+/`(?:,\s+|\s+and\s+)?)+)", ARCHITECTURE).group(1)
    packages = sorted(p.parent.name for p in (PROJECT_ROOT / "numeric").glob("*/__init__.py"))
    assert sorted(re.findall(r"`(\w+)/`", named)) == packages


def test_every_file_path_in_the_architecture_exists():
    """Every `path/to/file.py` (and `folder/`) the step lists and rules name."""
    missing = []
    for path in set(re.findall(r"`((?:numeric|verify|theorems|tests|bench|docs)/[\w/.]*)`", ARCHITECTURE)):
        if not (PROJECT_ROOT / path).exists():
            missing.append(path)
    assert missing == []


def _argparse_modules() -> set[str]:
    found = set()
    for top in ("numeric", "verify", "theorems", "bench"):
        for path in (PROJECT_ROOT / top).rglob("*.py"):
            tree = ast.parse(path.read_text())
            if any(isinstance(n, ast.Import) and any(a.name == "argparse" for a in n.names) for n in ast.walk(tree)):
                found.add(".".join(path.relative_to(PROJECT_ROOT).with_suffix("").parts))
    return found


def test_only_the_listed_scripts_parse_options_outside_the_cli():
    """'Outside it only these modules parse options of their own ...'."""
    sentence = ARCHITECTURE[ARCHITECTURE.index("Outside it only these modules"):]
    sentence = sentence[:sentence.index("\n- ")]
    listed = set(re.findall(r"`((?:verify|bench)\.[\w.]+)`", sentence))
    outside = {m for m in _argparse_modules() if not m.startswith("verify.cli")}
    assert outside == listed


def test_claim_tests_of_the_attention_maps_cover_the_vocabulary():
    """'The claim tests ... loop over `ATTENTIONS`': SX-1 draws from it, SX-2 parametrizes by it."""
    for name in ("test_SX1_population_loss.py", "test_SX2_population_gradient.py"):
        assert "ATTENTIONS" in (PROJECT_ROOT / "theorems" / name).read_text(), name
