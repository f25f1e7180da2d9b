"""The numbers of README.md and docs/results-*.md are rendered from docs/data
(:mod:`verify.report.documents`), and the SX-4 verdict is one sentence shared by the documents
and the ``xor_mstar`` figure (:mod:`verify.report.statements`)."""

import json
import shutil

import pytest

from tests.helpers import PROJECT_ROOT, raises_input_error
from verify.report import documents, statements, xor_figures
from verify.report.documents import DOCUMENTS, render_text, update_documents
from verify.report.fragments import FRAGMENTS, DataCache

DATA = PROJECT_ROOT / "docs" / "data"


@pytest.fixture(scope="module")
def sx4_summary():
    return statements.sx4_fit(DATA)


def _copy_project(tmp_path):
    """README.md and the results documents, and the data files the fragments read, under tmp_path."""
    for doc in DOCUMENTS:
        (tmp_path / doc).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT_ROOT / doc, tmp_path / doc)
    data = tmp_path / "docs" / "data"
    data.mkdir(parents=True, exist_ok=True)
    for name in {f for fragment in FRAGMENTS.values() for f in fragment.files}:
        shutil.copy(DATA / name, data / name)
    return data


def test_documents_are_rendered_from_the_data():
    assert update_documents(PROJECT_ROOT, write=False) == [], (
        "a document's rendered numbers are stale: run `python -m verify.report.documents`")


def test_sx7_table_decides_with_the_rule_numbers():
    from verify.experiments.claim_rules import SX7

    table = FRAGMENTS["sx7-table"].render(DataCache(DATA))
    rows = [line.split(" | ") for line in table.strip().splitlines()[2:]]
    assert len(rows) == len(statements.sx4_fit(DATA)["thresholds"])
    assert rows[0][-1].endswith("(reported, not decided) |") == (SX7.decide_from > 100)


def test_every_fragment_is_used_by_a_document():
    used = {name for doc in DOCUMENTS for name in documents.fragment_names((PROJECT_ROOT / doc).read_text())}
    assert used == set(FRAGMENTS)


@pytest.mark.parametrize("name, edit, stale", [
    # one cell of the SX-4 sweep gains a success: the fit, its statement and tables move
    ("xor_sweep.json", lambda d: d["cells"][0].update(successes=d["cells"][0]["successes"] + 1),
     {"README.md", "docs/results-paper-a.md"}),
    # the softmax one-step fraction of SX-5 changes
    ("xor_compare.json", lambda d: d["softmax"]["one_step"].update({"frac_below_1e-6": 0.9}), {"README.md"}),
    # one cell of the one-step SX-6 grid: its threshold table and exponents move
    ("xor_samples_grid.json", lambda d: d["cells"][3].update(both_successes=d["cells"][3]["both_successes"] // 2),
     {"README.md", "docs/results-paper-a.md"}),
    # the trained FIRST radius at N = 12 (SG-9, trained solutions)
    ("local_volume_trained_N12.json", lambda d: d["curves"][0].update(radius=0.05),
     {"README.md", "docs/results-paper-b.md"}),
    # a certified half-width (SG-9, N = 8)
    ("certified_volume.json", lambda d: next(c for c in d["certified"] if c["N"] == 8).update(half_width=0.003),
     {"README.md", "docs/results-paper-b.md"}),
    # one SG-8 decision inconclusive at one seed base
    ("seed_bases.json", lambda d: next(x for x in d["decisions"] if x["claim"] == "SG-8")["counts"].update(
        {"pass": 19, "inconclusive": 1}), {"README.md"}),
    # the legacy SX-6 grid: one cell
    ("xor_samples.json", lambda d: d["cells"][2].update(both_successes=0), {"README.md", "docs/results-paper-a.md"}),
    # SG-2's Monte Carlo estimate at N = 3
    ("sg2_random_functions.json", lambda d: d["monte_carlo"]["3"].update(p_hat=0.5), {"docs/results-boolean.md"}),
    # SG-6: the constant fraction of one cell
    ("sg6_random_profiles.json", lambda d: d["results"]["gaussian"]["8"].update(frac_constant=0.5),
     {"docs/results-paper-b.md"}),
    # SG-4: one model's influence at N = 8; SG-5: one count
    ("sg4_influence.json", lambda d: d.update(slope_mean_log=-0.6), {"docs/results-paper-b.md"}),
    ("sg5_margin.json", lambda d: d["counts"]["0.1"]["nonconstant"].__setitem__(0, 9), {"docs/results-paper-b.md"}),
    # Theorem 4.5: one cell's certified count
    ("theorem45.json", lambda d: d["cells"]["uniform/N=98"].update(bound_holds=29), {"docs/results-paper-b.md"}),
    # one mutant survives
    ("mutants.json", lambda d: d.update(caught=d["caught"] - 1), {"README.md"}),
    # one PARITY run of the SG-8 budget transition learns
    ("sg8_parity_transition.json", lambda d: d["summary"]["parity/N=16"].update(accuracy=[1.0, 0.5, 0.5]),
     {"README.md"}),
    # the sampled PARITY radius at N = 4 (SG-9)
    ("local_volume.json", lambda d: next(c for c in d["curves"] if (c["function"], c["N"]) == ("parity", 4)).update(
        radius=0.02), {"README.md", "docs/results-paper-b.md"}),
])
def test_changed_number_in_the_data_makes_the_documents_stale(tmp_path, name, edit, stale):
    data = _copy_project(tmp_path)
    content = json.loads((data / name).read_text())
    edit(content)
    (data / name).write_text(json.dumps(content))
    assert set(update_documents(tmp_path, write=False)) == stale
    assert main_check(tmp_path) == 1
    assert set(update_documents(tmp_path)) == stale
    assert main_check(tmp_path) == 0


def main_check(root):
    return documents.main(["--root", str(root), "--check"])


def test_a_marker_naming_no_fragment_is_refused():
    with raises_input_error("marker", "fragment name"):
        render_text("a <!-- data:no-such-number -->1<!-- /data:no-such-number --> b", DataCache(DATA))


def test_mstar_figure_title_states_the_documents_verdict(sx4_summary, monkeypatch, tmp_path):
    titles = []

    def capture(fig, paths, data=(), **kwargs):
        # the verdict is the figure's note under the panel
        titles.append(fig.axes[0].get_title() + " " + (fig._supxlabel.get_text() if fig._supxlabel else ""))
        return paths

    monkeypatch.setattr(xor_figures, "save", capture)
    xor_figures.threshold_law_plot(sx4_summary, tmp_path / "xor_mstar", size="m")
    verdict = statements.law_verdict(sx4_summary)
    assert titles and all(verdict in title.replace("\n", " ") for title in titles)
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert statements.sx4_statement(sx4_summary) in readme
    assert verdict in statements.sx4_statement(sx4_summary)


def test_law_verdict_follows_the_rule(sx4_summary):
    diff = sx4_summary["loglik"]["polylog"] - sx4_summary["loglik"]["power"]
    assert sx4_summary["comparison"] == ("polylog" if diff > sx4_summary["margin"] else
                                         "power" if -diff > sx4_summary["margin"] else "indistinguishable")
    assert statements.law_verdict(sx4_summary).startswith(
        {"polylog": "polylog ahead of power", "power": "power ahead of polylog",
         "indistinguishable": "power and polylog indistinguishable"}[sx4_summary["comparison"]])
    tied = sx4_summary | {"comparison": "indistinguishable",
                          "loglik": sx4_summary["loglik"] | {"polylog": sx4_summary["loglik"]["power"] + 1}}
    assert statements.law_verdict(tied).startswith("power and polylog indistinguishable (log-likelihood "
                                                   "difference 1.0 < margin 3")


def test_paper_a_figures_use_the_sx4_fit(sx4_summary, tmp_path):
    drawn, numbers = xor_figures.render_from_data(DATA, tmp_path, files=("xor_sweep.json",))
    laws = numbers["m_star_laws"]
    assert (laws["comparison"], laws["margin"], laws["loglik"]) == (
        sx4_summary["comparison"], sx4_summary["margin"], sx4_summary["loglik"])
