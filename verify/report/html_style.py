"""The style sheet of the HTML report (:mod:`verify.report.html_report`), inline in the page:
no external style sheet or font, so the page renders the same offline. The outcome colours are
the Okabe-Ito palette's blue, vermillion and orange (distinguishable with the common
colour-vision deficiencies), and every badge also names its outcome in words."""

STYLE = """
:root { --pass: #0072B2; --fail: #D55E00; --inconclusive: #E69F00; --other: #6b6b6b;
        --line: #d0d7de; --soft: #f6f8fa; --text: #1f2328; --muted: #59636e; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--text);
       margin: 0 auto; max-width: 1180px; padding: 24px 28px 64px; line-height: 1.45; font-size: 15px; }
h1 { font-size: 1.7em; margin: 0 0 4px; }
h2 { font-size: 1.35em; margin: 0 0 8px; }
h3 { font-size: 1.05em; margin: 18px 0 6px; color: #333; border-bottom: 1px solid var(--line); padding-bottom: 2px; }
code, pre, .num { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.88em; }
code { background: var(--soft); padding: 0 3px; border-radius: 3px; overflow-wrap: anywhere; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px;
      white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; }
pre code { background: none; padding: 0; }
pre.command { border-left: 4px solid var(--pass); }
pre.message { border-left: 4px solid var(--fail); }
.muted { color: var(--muted); }
.summary { font-size: 1.1em; margin: 8px 0 16px; }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; vertical-align: top; text-align: left; }
thead th { background: var(--soft); }
tbody tr:nth-child(even) { background: #fbfcfd; }
td.n { text-align: right; white-space: nowrap; }
td.stmt { font-size: 0.92em; }
.provenance table th { width: 170px; background: var(--soft); font-weight: 600; }
.provenance, nav, .claim, .extra { border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px; margin: 18px 0; }
.claim h2 { display: flex; align-items: center; gap: 10px; }
.statement { font-size: 1.05em; margin: 4px 0; }
.meta { color: var(--muted); font-size: 0.9em; margin: 2px 0 8px; }
.rule { font-size: 0.92em; background: var(--soft); border-radius: 6px; padding: 6px 10px; }
table.decisions td:nth-child(1) { width: 30%; }
table.decisions td:nth-child(2) { width: 16%; overflow-wrap: anywhere; }
table.decisions td:nth-child(3) { width: 17%; }
table.decisions td:nth-child(5) { width: 1%; white-space: nowrap; }
table.instruments { font-size: 0.92em; }
table.instruments td:nth-child(3) { width: 24%; }
table.instruments td:nth-child(5) { width: 20%; }
table.instruments code, .test summary code { overflow-wrap: break-word; }
.badge { display: inline-block; border-radius: 999px; padding: 1px 9px; font-size: 0.8rem; font-weight: 700;
         letter-spacing: 0.02em; white-space: nowrap; border: 2px solid transparent; vertical-align: middle; }
.badge.pass { background: var(--pass); color: #fff; }
.badge.fail { background: var(--fail); color: #fff; }
.badge.inconclusive { background: #fff; color: #1f2328; border-color: var(--inconclusive);
                      border-style: dashed; }
.badge.other { background: #fff; color: var(--other); border-color: var(--other); }
figure { margin: 10px 0 16px; }
figure img { display: block; max-width: min(100%, 880px); height: auto; border: 1px solid var(--line); border-radius: 4px; }
figcaption { font-size: 0.88em; color: var(--muted); margin-top: 4px; }
.missing { border: 2px dashed var(--fail); border-radius: 6px; padding: 8px 10px; margin: 8px 0; background: #fff7f2; }
details.test { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details.test > summary { cursor: pointer; }
.headline { font-size: 0.88em; color: var(--muted); margin-left: 1.2em; }
.evidence { margin: 6px 0 4px; font-size: 0.92em; overflow-x: auto; }
dl.ev { display: grid; grid-template-columns: minmax(120px, max-content) 1fr; gap: 2px 12px; margin: 2px 0; }
dl.ev dt { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.86em; color: #444; }
dl.ev dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
ol.ev { margin: 2px 0; padding-left: 2.2em; }
.str { white-space: pre-wrap; }
.top { font-size: 0.85em; margin: 10px 0 0; }
a { color: #0550ae; }
@media print { details.test { break-inside: avoid; } .top { display: none; } }
"""


__all__ = ["STYLE"]
