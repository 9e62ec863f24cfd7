"""The headline metrics: the few numbers a sweep is judged on, as DVC's metrics file.

``reports/metrics.json`` holds every method x condition x metric plus every comparison's CI
fields (thousands of values): as DVC metrics it made ``dvc exp show`` and ``dvc metrics diff``
thousands of columns wide. ``reports/headline.json`` keeps, flat and short-named:
- PageRec@k of the retrieval rows of ``headline.rows`` (short name -> method), and DocRec@k of
  the ``best`` row;
- PageRec@k under Oracle-Doc of the rows of ``headline.oracle_doc``;
- StrictAcc of the answered runs of ``headline.answers`` (short name -> [method, condition]),
  and StrictAcc and Reliability of the project's held-out questions.
Everything else stays in ``metrics.json`` and ``answers.json`` (plain outputs, same keys).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.params import ParamError


def headline_metrics(metrics: Mapping, answers: Mapping | None, rows: Mapping[str, str],
                     oracle_doc: Mapping[str, str], answer_runs: Mapping[str, list],
                     k: int, doc_rec_of: str = "best") -> dict[str, float]:
    """Flat ``{"<short>.<metric>": value}``, rounded to 4 decimals (headlines, not data)."""
    out: dict[str, float] = {}

    def put(key: str, value) -> None:
        if value is not None:
            out[key] = round(float(value), 4)

    for short, method in rows.items():
        if method not in metrics:
            raise ParamError(f"headline.rows: {method!r} is not in reports/metrics.json")
        # .get: a corpus without gold evidence scores nothing (metrics rows hold only n)
        put(f"{short}.PageRec@{k}", metrics[method]["standard"].get(f"PageRec@{k}"))
        if short == doc_rec_of:
            put(f"{short}.DocRec@{k}", metrics[method]["standard"].get(f"DocRec@{k}"))
    for short, method in oracle_doc.items():
        if method not in metrics:
            raise ParamError(f"headline.oracle_doc: {method!r} is not in reports/metrics.json")
        put(f"{short}.PageRec@{k}.oracle_doc",
            metrics[method]["oracle_doc"].get(f"PageRec@{k}"))
    if answers is not None:
        for short, (method, cond) in answer_runs.items():
            run = answers.get("runs", {}).get(method, {}).get(cond)
            if run is None:
                raise ParamError(f"headline.answers: no answered run [{method}, {cond}] in "
                                 "reports/answers.json (see generate.runs)")
            put(f"{short}.StrictAcc", run["StrictAcc"])
        held = answers.get("heldout", {}).get("oracle_page")
        if held:
            put("heldout.StrictAcc", held["StrictAcc"])
            put("heldout.Reliability", held["Reliability"])
    return out
