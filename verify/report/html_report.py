"""The report of ``boolverify check`` as one self-contained HTML page (``check --html``).

One file a referee can open anywhere, offline: per claim its statement as formalised, the
decision rule fixed before the data, every decision (estimand, estimate, interval, rule,
outcome), its figures, the exact checks behind it (each test's recorded evidence, e.g. the
cases compared and the wrong closed forms rejected), its instruments and the command that
reproduces it; the run's provenance at the top.

Nothing is fetched when the page is opened: the figures are embedded as base64 ``data:`` URIs,
the style sheet is inline and the fonts are the reader's own, so the page renders the same from
a mail attachment, a CI artefact or a machine without a network. Only the standard library
builds it; every string of the report is escaped, since test messages and evidence hold
arbitrary text (``<``, ``&``, quotes).

The figures of a claim are named in :data:`CLAIM_FIGURES` (stems under ``docs/figures``); each
figure's ``<stem>.provenance.json`` sidecar says which command drew it, from which data, at
which commit. A missing or unreadable figure is a visible note, never a broken image.
"""

from __future__ import annotations

import base64
import html
import json
import math
import tempfile
from pathlib import Path

from numeric.validation import InputError, reject
from verify.common.atomic_io import atomic_write_text
from verify.common.provenance import SOURCE_ROOT, sidecar_path
from verify.report import cells
from verify.report.cells import interval_parts
from verify.report.claims import CLAIMS
from verify.report.html_style import STYLE as _STYLE

#: where the committed figures live (the figures of ``boolverify runs``)
FIGURES_DIR = SOURCE_ROOT / "docs" / "figures"

#: claim -> the stems (under ``docs/figures``) of the figures that show its data; claims checked
#: only symbolically or by enumeration have none. The one place this mapping is kept.
CLAIM_FIGURES = {
    "SX-1": (),
    "SX-2": (),
    "SX-3": (),
    "SX-4": ("xor_success_heatmap", "xor_success_heatmap_limit", "xor_mstar"),
    "SX-5": ("xor_loss_curves",),
    "SX-6": ("xor_nstar", "xor_nstar_training"),
    "SX-7": ("xor_mstar",),
    "SX-8": ("xor_attention_d64",),
    "SG-1": ("sg1_profiles",),
    "SG-2": (),
    "SG-3": (),
    "SG-4": ("sg4_influence_vs_N",),
    "SG-5": ("sg5_margin_vs_N",),
    "SG-6": ("sg6_K0_fraction_vs_N", "sg6_profiles_per_init", "theorem45"),
    "SG-7": (),
    "SG-8": ("sg8_training_profiles",),
    "SG-9": ("local_volume", "local_volume_trained"),
}

#: outcome -> (CSS class, mark): the colours are from the Okabe-Ito palette (distinguishable
#: with the common colour-vision deficiencies) and every badge also says its outcome in words
_BADGES = {
    "pass": ("pass", "\u2713"),
    "passed": ("pass", "\u2713"),
    "fail": ("fail", "\u2717"),
    "failed": ("fail", "\u2717"),
    "error": ("fail", "\u2717"),
    "inconclusive": ("inconclusive", "?"),
    "skipped": ("other", "\u2013"),
    "no test": ("other", "\u2013"),
}

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

#: long evidence lists are cut at this many items (the JSON report has them all)
_LIST_LIMIT = 24
#: nested evidence deeper than this is shown as compact JSON
_DEPTH_LIMIT = 4
#: a test's evidence at most this long (as JSON) is shown unfolded
_OPEN_LIMIT = 1600

_REQUIRED = ("profile", "duration_s", "passed", "claims", "environment")
_CLAIM_KEYS = ("id", "statement", "status", "duration_s", "tests")


def check_report(report) -> dict:
    """The report of ``boolverify check`` (its JSON form), with the keys the page needs;
    anything else is refused with :class:`InputError` (argument ``report``)."""
    expected = "the JSON object of 'boolverify check --json'"
    if not isinstance(report, dict):
        reject("report", f"<{type(report).__name__}>", expected)
    missing = [k for k in _REQUIRED if k not in report]
    if missing:
        reject("report", "<a JSON object>", f"{expected}, with the keys {', '.join(missing)}")
    claims = report["claims"]
    if not isinstance(claims, list) or not all(isinstance(c, dict) and all(k in c for k in _CLAIM_KEYS)
                                               for c in claims):
        reject("report", "<a JSON object>", f"{expected}: a list 'claims', each with {', '.join(_CLAIM_KEYS)}")
    return report


def reproduce_command(report: dict, claim_id: str) -> str:
    """The command line that reruns one claim as this report ran it (profile, seed base and
    threads per worker of the run; the outcomes must not depend on the threads)."""
    prov = report.get("provenance") or {}
    env = report.get("environment") or {}
    seed = prov.get("seed_base", env.get("seed_base"))
    threads = prov.get("threads", env.get("threads_per_worker"))
    parts = ["boolverify", "check", "--claim", claim_id, "--profile", str(report["profile"])]
    if seed is not None:
        parts += ["--seed", str(seed)]
    if threads is not None:
        parts += ["--threads", str(threads)]
    return " ".join(parts)


def figure_stems(claim_id: str) -> tuple:
    return CLAIM_FIGURES.get(claim_id, ())


# -- small pieces ------------------------------------------------------------------------------

def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _anchor(claim_id: str) -> str:
    return "claim-" + "".join(ch if ch.isalnum() else "-" for ch in str(claim_id).lower())


def _badge(outcome) -> str:
    cls, mark = _BADGES.get(str(outcome), ("other", "\u2013"))
    return f'<span class="badge {cls}"><span aria-hidden="true">{mark}</span> {_e(outcome)}</span>'


def _number(x) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    return cells.number(x, 6)


def _interval(decision: dict) -> str:
    """A decision's interval and level, as every report shows it (:func:`cells.interval_parts`):
    a one-sided bound reads as one, ``upper bound 0.51``, its other end being no measured value
    (a probability's 0, a stand-in -inf)."""
    iv = decision.get("interval")
    level = decision.get("level")
    if iv is None:
        return '<span class="muted">none</span>'
    side, text = interval_parts(iv, str(decision.get("rule") or ""), digits=6)
    notes = []
    if side is None:
        out = f'<span class="num">{_e(text)}</span>'
    else:
        out = f'{side} bound <span class="num">{_e(text)}</span>'
        notes.append("one-sided")
    if isinstance(level, (int, float)) and not isinstance(level, bool):
        notes.append(f"level {100 * level:.4g} %")
    if notes:
        out += f'<br><span class="muted">{_e(", ".join(notes))}</span>'
    return out


def _finite_json(value):
    """``value`` with its infinite and NaN floats as the words a reader sees elsewhere on the
    page (JSON's ``-Infinity`` is no number a reader should have to decode)."""
    if isinstance(value, float) and not math.isfinite(value):
        return _number(value)
    if isinstance(value, dict):
        return {k: _finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_json(v) for v in value]
    return value


def _compact(value, limit=400) -> str:
    """A short one-line rendering of an estimate or a deep evidence value."""
    if isinstance(value, (bool, int, float)):
        return _number(value)
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(_finite_json(value), default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _ident(text) -> str:
    """An identifier (a dotted module path, a test name) as <code> that may wrap after its dots
    and underscores, not in the middle of a word."""
    escaped = _e(text)
    for ch in "._":
        escaped = escaped.replace(ch, ch + "<wbr>")
    return f"<code>{escaped}</code>"


def _code_spans(text: str) -> str:
    """Plain text whose `backticked` parts (the registry's Markdown) become <code>."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: keep the text as it is
        return _e(text)
    return "".join(_e(p) if i % 2 == 0 else f"<code>{_e(p)}</code>" for i, p in enumerate(parts))


# -- evidence ----------------------------------------------------------------------------------

def _value_html(value, depth=0) -> str:
    if value is None:
        return '<span class="muted">null</span>'
    if isinstance(value, (bool, int, float)):
        return f'<span class="num">{_e(_number(value))}</span>'
    if isinstance(value, str):
        return f'<span class="str">{_e(value)}</span>' if value else '<span class="muted">(empty)</span>'
    if depth >= _DEPTH_LIMIT:
        return f'<code class="json">{_e(_compact(value))}</code>'
    if isinstance(value, (list, tuple)):
        if not value:
            return '<span class="muted">[] (none)</span>'
        shown = list(value[:_LIST_LIMIT])
        more = len(value) - len(shown)
        tail = f" \u2026 (+{more} more in the JSON report)" if more else ""
        if all(v is None or isinstance(v, (bool, int, float)) for v in shown):
            return (f'<span class="num">[{_e(", ".join("null" if v is None else _number(v) for v in shown))}'
                    f'{_e(tail)}]</span>')
        items = "".join(f"<li>{_value_html(v, depth + 1)}</li>" for v in shown)
        return f'<ol class="ev" start="0">{items}</ol>' + (f'<p class="muted">{_e(tail.strip())}</p>' if more else "")
    if isinstance(value, dict):
        if not value:
            return '<span class="muted">{} (empty)</span>'
        rows = "".join(f"<dt>{_e(k)}</dt><dd>{_value_html(v, depth + 1)}</dd>" for k, v in value.items())
        return f'<dl class="ev">{rows}</dl>'
    return _e(value)


def _headline(evidence: dict) -> str:
    """A test's evidence in a line: its counts, flags and numbers first, then how many entries
    each list or table holds (e.g. ``rejected: 6``)."""
    scalars, sizes = [], []
    for key, value in evidence.items():
        if key == "decisions":
            continue
        if isinstance(value, (bool, int, float)):
            scalars.append(f"{key} = {_number(value)}")
        elif isinstance(value, list) and 0 < len(value) <= 6 and all(
                isinstance(v, (bool, int, float)) for v in value):
            scalars.append(f"{key} = [{', '.join(_number(v) for v in value)}]")
        elif isinstance(value, (list, dict)) and value:
            sizes.append(f"{key}: {len(value)} {'entries' if isinstance(value, dict) else 'items'}")
        elif isinstance(value, str) and 0 < len(value) <= 48:
            scalars.append(f"{key} = {value}")
    parts = (scalars + sizes)[:6]
    rest = len(scalars) + len(sizes) - len(parts)
    return "; ".join(parts) + (f"; +{rest} more" if rest > 0 else "")


def _test_name(nodeid: str) -> str:
    return nodeid.split("::", 1)[-1]


def _tests_html(claim: dict) -> str:
    tests = claim.get("tests") or []
    if not tests:
        return '<p class="missing" role="note">No test of this claim ran.</p>'
    blocks = []
    for t in tests:
        evidence = t.get("evidence") or {}
        shown = {k: v for k, v in evidence.items() if k != "decisions"}
        n_decisions = len(evidence.get("decisions") or [])
        size = len(json.dumps(shown, default=str))
        body = _value_html(shown) if shown else '<p class="muted">no evidence recorded beyond the outcome</p>'
        if n_decisions:
            body += (f'<p class="muted">{n_decisions} decision{"s" if n_decisions != 1 else ""} of this test: '
                     "see the decisions table above.</p>")
        message = t.get("message") or ""
        if message and t.get("outcome") in ("failed", "error"):
            body = f'<pre class="message">{_e(message)}</pre>' + body
        duration = t.get("duration")
        when = f"{duration:.2f} s" if isinstance(duration, (int, float)) else ""
        head = _headline(evidence)
        opened = " open" if size <= _OPEN_LIMIT or t.get("outcome") in ("failed", "error") else ""
        blocks.append(
            f'<details class="test"{opened}><summary>{_badge(t.get("outcome", "?"))} '
            f'<code>{_e(_test_name(str(t.get("nodeid", ""))))}</code> <span class="muted">{_e(when)}</span>'
            f'{f"<br><span class=headline>{_e(head)}</span>" if head else ""}</summary>'
            f'<div class="evidence">{body}</div></details>')
    return "\n".join(blocks)


# -- per claim ---------------------------------------------------------------------------------

def _decisions_html(claim: dict) -> str:
    decisions = claim.get("decisions") or []
    if not decisions:
        return ('<p class="muted">No decision recorded: the claim is decided by the checks below '
                "(every one must pass).</p>")
    rows = []
    for d in decisions:
        est = d.get("estimate")
        est_text = ('<span class="muted">-</span>' if est is None
                    else f'<span class="{"str" if isinstance(est, str) else "num"}">{_e(_compact(est))}</span>')
        rows.append(f"<tr><td>{_e(d.get('estimand', ''))}</td><td>{est_text}</td><td>{_interval(d)}</td>"
                    f"<td>{_e(d.get('rule', ''))}</td><td>{_badge(d.get('outcome', '?'))}</td></tr>")
    return ('<table class="decisions"><thead><tr><th scope="col">estimand</th><th scope="col">estimate</th>'
            '<th scope="col">interval</th><th scope="col">decision rule</th><th scope="col">outcome</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _figure_provenance(png: Path) -> str:
    sidecar = sidecar_path(png)
    try:
        record = json.loads(sidecar.read_text(encoding="utf-8"))
        prov = record["provenance"]
    except (OSError, ValueError, KeyError, TypeError):
        return f'<span class="muted">no provenance record ({_e(sidecar.name)} missing or unreadable)</span>'
    command = " ".join(prov.get("command") or []) or "unknown command"
    commit = prov.get("commit")
    state = "" if prov.get("dirty") is None else (" with uncommitted changes" if prov["dirty"] else "")
    data = record.get("data") or []
    parts = [f"drawn by <code>{_e(command)}</code>",
             f"at commit <code>{_e(commit[:12] if commit else 'unknown')}</code>{_e(state)}",
             f"on {_e(prov.get('date') or 'an unknown date')}"]
    if data:
        parts.append("from " + ", ".join(f"<code>{_e(d)}</code>" for d in data))
    if prov.get("reconstructed"):
        parts.append("(record reconstructed from git history)")
    return " ".join(parts)


def _figure_html(stem: str, figures_dir: Path) -> str:
    png = Path(figures_dir) / f"{stem}.png"
    try:
        data = png.read_bytes()
    except OSError:
        data = None
    if not data or not data.startswith(_PNG_MAGIC):
        why = "is missing" if data is None else "is not a PNG image"
        return (f'<div class="missing" role="note"><strong>Figure not available:</strong> '
                f"<code>{_e(png)}</code> {why}. Redraw it with <code>boolverify runs figures</code> "
                "(or the run that makes it, see <code>boolverify runs --list</code>).</div>")
    return _embedded_figure(data, stem, _figure_provenance(png))


def _embedded_figure(png_bytes: bytes, stem: str, caption_html: str) -> str:
    """A figure embedded as a data URI, captioned with its file name and ``caption_html``."""
    uri = "data:image/png;base64," + base64.b64encode(png_bytes).decode("ascii")
    return (f'<figure><img src="{uri}" alt="{_e(stem)} (figure)">'
            f"<figcaption><code>{_e(stem)}.png</code>: {caption_html}</figcaption></figure>")


def _report_figure_html(cid: str, report: dict) -> str:
    """The figure drawn from this report's own evidence for ``cid`` (see
    :data:`verify.report.claim_figures.REPORT_FIGURES`), or a note when the evidence lacks it."""
    from verify.report.claim_figures import REPORT_FIGURES

    draw = REPORT_FIGURES.get(cid)
    if draw is None:
        return ""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            png = draw(report, tmp)[0]
        except InputError as exc:
            return f'<div class="missing" role="note"><strong>Figure not drawn:</strong> {_e(exc)}</div>'
        data = Path(png).read_bytes()
    return _embedded_figure(data, Path(png).stem, f"drawn from this report's {_e(cid)} evidence (the decided "
                                                  "estimates, intervals and thresholds above)")


def _instruments_html(rows) -> str:
    if not rows:
        return '<p class="muted">No instruments registered for this claim.</p>'
    body = "".join(
        f"<tr><td>{_e(r.get('name', ''))}</td><td>{_e(r.get('kind', ''))}</td>"
        f"<td>{_ident(r.get('seam', ''))}</td><td>{_e(r.get('description', ''))}</td>"
        f"<td>{', '.join(_ident(fn) for fn in r.get('known_answer') or [])}</td></tr>"
        for r in rows)
    return ('<table class="instruments"><thead><tr><th scope="col">instrument</th><th scope="col">kind</th>'
            '<th scope="col">seam</th><th scope="col">known answer</th><th scope="col">checked by</th></tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _claim_html(claim: dict, report: dict, instruments: dict, figures_dir: Path) -> str:
    cid = str(claim["id"])
    registered = CLAIMS.get(cid)
    stems = figure_stems(cid)
    kind = registered.kind if registered else "unknown"
    theorem = claim.get("theorem_file") or (registered.theorem_file if registered else "")
    rule = (f'<p class="rule"><strong>Decision rule, fixed before the data:</strong> {_code_spans(registered.rule)}</p>'
            if registered and registered.rule else "")
    figures = (_report_figure_html(cid, report) + "".join(_figure_html(s, figures_dir) for s in stems) if stems
               else '<p class="muted">No figure: this claim is checked exactly (symbolic, enumeration or '
                    "reference comparisons).</p>" if kind == "exact"
               else '<p class="muted">No figure for this claim.</p>')
    n_tests = len(claim.get("tests") or [])
    return f"""
<section class="claim" id="{_anchor(cid)}" data-claim="{_e(cid)}">
<h2>{_e(cid)} {_badge(claim['status'])}</h2>
<p class="statement">{_e(claim['statement'])}</p>
<p class="meta">{_e(kind)} claim &middot; theorem file <code>{_e(theorem)}</code> &middot;
 {n_tests} test{'s' if n_tests != 1 else ''} &middot; {claim['duration_s']:.1f} s</p>
{rule}
<h3>Decisions</h3>
{_decisions_html(claim)}
<h3>Reproduce</h3>
<pre class="command"><code>{_e(reproduce_command(report, cid))}</code></pre>
<h3>Figures</h3>
{figures}
<h3>Checks behind it</h3>
{_tests_html(claim)}
<h3>Instruments</h3>
{_instruments_html(instruments.get(cid))}
<p class="top"><a href="#contents">back to the contents</a></p>
</section>"""


# -- the page ----------------------------------------------------------------------------------

def _provenance_html(report: dict) -> str:
    prov = report.get("provenance") or {}
    env = report.get("environment") or {}
    commit = prov.get("commit")
    dirty = prov.get("dirty")
    state = "unknown" if dirty is None else ("with uncommitted changes" if dirty else "clean")
    libs = prov.get("libraries") or {}
    lib_text = ", ".join(f"{k} {v}" for k, v in libs.items() if v) or "unknown"
    command = " ".join(prov.get("command") or []) or "unknown"
    cpu = prov.get("cpu") or env.get("cpu_model") or "unknown"
    if env.get("cpus"):
        cpu += f" ({env['cpus']} CPUs)"
    bounds = (env.get("bounds") or {}).get("note")
    rows = [
        ("commit", f"<code>{_e(commit or 'unknown')}</code> ({_e(state)})"),
        ("command", f"<code>{_e(command)}</code>"),
        ("boolverify", _e(prov.get("boolverify_version") or "unknown")),
        ("profile", _e(report["profile"])),
        ("seed base", _e(prov.get("seed_base", env.get("seed_base")))),
        ("threads per worker", _e(prov.get("threads", env.get("threads_per_worker")))),
        ("worker processes", _e(env.get("jobs", "unknown"))),
        ("CPU", _e(cpu)),
        ("platform", _e(env.get("platform") or "unknown")),
        ("libraries", _e(lib_text)),
        ("CUDA", _e(env.get("cuda", "unknown"))),
        ("started", _e(report.get("started") or "unknown")),
        ("written", _e(prov.get("date") or "unknown")),
        ("duration", _e(f"{report['duration_s']} s")),
    ]
    if bounds:
        rows.append(("bounds", _e(bounds)))
    if prov.get("reconstructed"):
        rows.append(("record", "reconstructed from git history"))
    body = "".join(f"<tr><th scope=\"row\">{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<section class="provenance" aria-label="provenance"><h2>Provenance</h2><table>{body}</table></section>'


def _contents_html(report: dict) -> str:
    rows = []
    for c in report["claims"]:
        n = len(c.get("decisions") or [])
        rows.append(f'<tr><td><a href="#{_anchor(c["id"])}">{_e(c["id"])}</a></td>'
                    f'<td class="stmt">{_e(c["statement"])}</td><td class="n">{n}</td>'
                    f'<td>{_badge(c["status"])}</td><td class="n">{c["duration_s"]:.1f} s</td></tr>')
    return ('<nav id="contents" aria-label="contents"><h2>Claims</h2><table class="toc"><thead><tr>'
            '<th scope="col">claim</th><th scope="col">statement (as formalised)</th><th scope="col">decisions</th>'
            '<th scope="col">outcome</th><th scope="col">time</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></nav>")


def _extras_html(report: dict) -> str:
    out = []
    failures = [(c["id"], t) for c in report["claims"] for t in c.get("tests") or []
                if t.get("outcome") in ("failed", "error")]
    if failures:
        items = "".join(f"<li><a href=\"#{_anchor(cid)}\">{_e(cid)}</a> <code>{_e(t.get('nodeid', ''))}</code>: "
                        f"{_e((t.get('message') or '').splitlines()[0] if t.get('message') else '')}</li>"
                        for cid, t in failures)
        out.append(f'<section class="extra"><h2>Failures</h2><ul>{items}</ul></section>')
    if report.get("worker_errors"):
        errs = "".join(f'<pre class="message">{_e(e)}</pre>' for e in report["worker_errors"])
        out.append(f'<section class="extra"><h2>Worker errors</h2>{errs}</section>')
    if report.get("unclaimed_tests"):
        items = "".join(f"<li><code>{_e(t)}</code></li>" for t in report["unclaimed_tests"])
        out.append(f'<section class="extra"><h2>Tests without a claim</h2><ul>{items}</ul></section>')
    mutants = report.get("mutants")
    if isinstance(mutants, dict) and "total" in mutants:
        survivors = mutants.get("survivors") or []
        surv = (", ".join(f"<code>{_e(s)}</code>" for s in survivors) if survivors else "none")
        out.append(f'<section class="extra" id="mutants"><h2>Mutation score</h2><p>{_e(mutants.get("caught"))}/'
                   f'{_e(mutants.get("total"))} planted bugs caught (score {_e(_compact(mutants.get("score")))}); '
                   f"survivors: {surv}. Each mutant is one plausible bug installed in-process "
                   "(<code>boolverify mutants</code>); the Markdown report lists every one.</p></section>")
    return "\n".join(out)


def render_html(report: dict, figures_dir=FIGURES_DIR) -> str:
    """The page of ``report`` (the dict of :func:`verify.report.runner.run_checks` with its
    provenance, or a stored ``check --json`` file read back), with the figures under
    ``figures_dir`` embedded."""
    report = check_report(report)
    figures_dir = Path(figures_dir)
    instruments = report.get("instruments")
    if not isinstance(instruments, dict):
        from verify.report.instrument_table import report_instruments

        instruments = report_instruments([c["id"] for c in report["claims"]])
    claims = report["claims"]
    counts = {s: sum(c["status"] == s for c in claims) for s in ("pass", "fail", "inconclusive")}
    other = len(claims) - sum(counts.values())
    overall = "pass" if report["passed"] else "fail"
    summary = (f"{counts['pass']}/{len(claims)} claims pass" + (f", {counts['fail']} fail" if counts["fail"] else "")
               + (f", {counts['inconclusive']} inconclusive" if counts["inconclusive"] else "")
               + (f", {other} without a test" if other else "")
               + f"; profile {report['profile']}, {report['duration_s']} s.")
    formalisation = report.get("formalisation") or "claims as formalised in boolverify (docs/claims.md)"
    sections = "\n".join(_claim_html(c, report, instruments, figures_dir) for c in claims)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>boolverify verification report</title>
<style>{_STYLE}</style>
</head>
<body>
<header>
<h1>boolverify verification report</h1>
<p class="summary">Overall {_badge(overall)} &mdash; {_e(summary)}</p>
<p class="muted">{_e(formalisation)}. Each decision states what was estimated, its interval and the rule fixed
before the data; each claim lists the checks behind it and the command that reruns it.</p>
</header>
{_provenance_html(report)}
{_contents_html(report)}
<main>
{sections}
</main>
{_extras_html(report)}
</body>
</html>
"""


def write_html(path, report: dict, figures_dir=FIGURES_DIR) -> Path:
    """Write the page of ``report`` to ``path`` atomically (rendered in full first, so a
    failure leaves the old file, or none)."""
    return atomic_write_text(path, render_html(report, figures_dir))


__all__ = ["CLAIM_FIGURES", "FIGURES_DIR", "check_report", "figure_stems", "render_html", "reproduce_command",
           "write_html"]
