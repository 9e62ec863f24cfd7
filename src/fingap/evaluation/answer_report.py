"""reports/answers.md: the answer agent's metrics as tables a person reads (from answers.json).

Column meanings (conventions in fingap.evaluation.strict_accuracy and fingap.steps.answer):
- StrictAcc: one value per answer within max(half a printed unit, 1%) of the gold, on the
  metrics-generated questions; StrictAcc_numeric: on the questions whose gold holds one number;
- NumericRecall@5: share of the hand-annotated input values printed on the run's top-5 pages;
- Coverage: share answered by the structured path; Reliability: its correct share among the
  gradable questions it answered; Verified: share of answers whose every number the gate traced;
- Citations: share of the numbers answers claim (structured inputs, LLM numbers) that the cited
  pages really print, counted before the gate withholds or falls back;
- LLM only: StrictAcc of the LLM's own answer for the same run (its first new number).

Selective answers (fingap.evaluation.selective), over a run's metrics-generated questions or a
whole own set: Coverage = a number given; Reliability = right among those given; Verified
right = right among the answers marked verified, with its Wilson 95% interval; AURC = the area
under the risk-coverage curve of the answers ordered by their confidence (lower is better).
"""

from __future__ import annotations

RUN_LABELS = {("dense", "standard"): "Dense", ("page_scorer", "standard"): "Page scorer",
              ("fingap_best", "standard"): "fingap best",
              ("page_scorer", "oracle_doc"): "Page scorer, Oracle-Doc",
              ("page_scorer", "oracle_page"): "Oracle-Page"}


def _f(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def _ci(c: dict | None) -> str:
    if not c:
        return "-"
    return f"{c['mean_diff']:+.3f} [{c['ci_low']:+.3f}, {c['ci_high']:+.3f}]"


def render_answers_report(report: dict) -> str:
    lines = ["# Answers: the fact-store agent", "",
             "129 evaluated FinanceBench questions; 45 metrics-generated (MG). Each run's pages "
             "are its top-5 chunks' pages; the LLM answer of `generate` is the fallback. "
             "CIs: paired bootstrap (10,000 resamples) of StrictAcc against the LLM-only answers "
             "of the same run.", "",
             "| run | StrictAcc (MG) | LLM only (MG) | vs LLM only, CI | StrictAcc_numeric | "
             "NumericRecall@5 | Coverage (all / MG) | Reliability | Verified | Citations | "
             "Abstained |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for method, conds in report["runs"].items():
        for cond, m in conds.items():
            label = RUN_LABELS.get((method, cond), f"{method} ({cond})")
            ci = report.get("vs_llm_only", {}).get(method, {}).get(cond, {})
            lines.append(
                f"| {label} | {_f(m['StrictAcc'])} | {_f(m.get('LLM_only_StrictAcc'))} | "
                f"{_ci(ci.get('metrics_generated'))} | {_f(m['StrictAcc_numeric'])} | "
                f"{_f(m['NumericRecall@5'])} | {_f(m['Coverage'])} / "
                f"{_f(m['Coverage_metrics_generated'])} | {_f(m['Reliability'])} | "
                f"{_f(m['Verified'])} | {_f(m.get('CitationAccuracy'))} | "
                f"{_f(m['Abstained'])} |")
    lines += ["", "## Selective answers: what a user can trust", "",
              f"Gate: `answer.gate: {report.get('params', {}).get('gate')}`; a figure the gate "
              "cannot verify is withheld. Runs: their metrics-generated questions; own sets: "
              "Oracle-Page (their gold pages). Risk-coverage curves: "
              "`reports/plots/risk_coverage.png`.", "",
              "| run or set | n | Coverage | Reliability | StrictAcc | Verified right | "
              "Verified wrong | AURC |", "|---|---|---|---|---|---|---|---|"]
    rows = [(RUN_LABELS.get((method, cond), f"{method} ({cond})"), m.get("selective"))
            for method, conds in report["runs"].items() for cond, m in conds.items()]
    rows += [(f"{name} (own set)", report[name]["oracle_page"])
             for name in report.get("own_sets", [])]
    for label, m in rows:
        if not m:
            continue
        ci = m.get("VerifiedPrecision_CI95")
        right = "-" if m.get("VerifiedPrecision") is None else (
            f"{m['verified_correct']}/{m['verified']} = {m['VerifiedPrecision']:.3f} "
            f"[{ci[0]:.3f}, {ci[1]:.3f}]")
        lines.append(f"| {label} | {m['n']} | {_f(m['Coverage'])} | {_f(m['Reliability'])} | "
                     f"{_f(m['StrictAcc'])} | {right} | {m.get('verified_wrong', '-')} | "
                     f"{_f(m.get('AURC'))} |")
    for key, title in (("question_type", "question type"), ("doc_type", "document type")):
        lines += ["", f"## By {title} (StrictAcc on gradable questions / Coverage)", ""]
        runs = [(m, c) for m, conds in report["breakdown"].items() for c in conds]
        groups = sorted({g for m, c in runs for g in report["breakdown"][m][c][key]})
        lines.append("| run | " + " | ".join(groups) + " |")
        lines.append("|---" * (len(groups) + 1) + "|")
        for m, c in runs:
            cells = report["breakdown"][m][c][key]
            lines.append(f"| {RUN_LABELS.get((m, c), f'{m} ({c})')} | " + " | ".join(
                f"{_f(cells[g]['StrictAcc_gradable'])} / {_f(cells[g]['Coverage'])} "
                f"(n={cells[g]['n']})" if g in cells else "-" for g in groups) + " |")
    return "\n".join(lines) + "\n"
