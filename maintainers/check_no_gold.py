"""The product's `dvc repro` on a user's corpus without gold evidence, end to end.

Builds the e2e test's tiny user corpus (renamed filings, a metadata file, a filing only its
cover page describes) with every question's evidence and answer removed, runs the product
pipeline on it with the one-layer MiniLM, then checks what docs/corpus.md promises: one fold
that trains nothing, every trainer keeping its base model, no metric, every question retrieved
and answered, fingap best falling back to ``best.no_gold`` and `fingap ask` saying so. About
6 minutes on two cores, so `make test` covers these paths stage by stage
(tests/steps/test_no_gold_steps.py) and with one unscored question in the e2e corpus instead.

    python maintainers/check_no_gold.py [--keep] [--no-questions]

(``--no-questions``: the corpus without its questions file: search and `fingap ask` only).

prints a JSON summary and exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.conftest import (  # noqa: E402
    COVER_DOC,
    USER_NAMES,
    append_statement_page,
    make_user_corpus,
    user_corpus_params,
)
from tests.test_pipeline_e2e import (  # noqa: E402
    _run,
    one_layer_minilm,
    trim_own_sets,
    write_tiny_params,
)

ACME = USER_NAMES["ACME_2022_10K"]


def strip_gold(questions: Path) -> list[str]:
    """The questions without their evidence and answers (as a user has them); returns the
    ids of those whose filing is there (the served ones)."""
    rows = [json.loads(line) for line in questions.read_text().splitlines()]
    rows = [{k: v for k, v in r.items() if k not in ("evidence", "answer")} for r in rows]
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return sorted(r["financebench_id"] for r in rows
                  if r["doc_name"] != USER_NAMES["ZETA_2020_10K"])


def build(root: Path, no_questions: bool = False) -> tuple[Path, dict, str, list[str]]:
    proj = root / "proj"
    (proj / "studies").mkdir(parents=True)
    for name in ("dvc.yaml", "params.yaml", ".gitignore", "studies/params.yaml"):
        shutil.copy(ROOT / name, proj / name)
    for name in ("stages", "src", "annotations"):
        shutil.copytree(ROOT / name, proj / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    trim_own_sets(proj, keep=1)
    corpus = make_user_corpus(root / "my_filings")
    append_statement_page(corpus / "filings" / f"{ACME}.pdf")
    served = strip_gold(corpus / "questions.jsonl")
    params = user_corpus_params(corpus)
    if no_questions:
        params["questions"], served = "", []
    write_tiny_params(proj, one_layer_minilm(root / "minilm_1layer"), [
        f"corpus.{key}={json.dumps(value)}"
        for key, value in params.items()] + ["compute.engine=local"])
    env = {**os.environ, "DVC_NO_ANALYTICS": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("MLFLOW_TRACKING_URI", None)
    env.pop("FINANCEBENCH_DIR", None)
    for cmd in (["git", "init", "-q"], ["git", "config", "user.email", "t@example.com"],
                ["git", "config", "user.name", "test"], ["dvc", "init", "-q"],
                ["git", "add", "-A"], ["git", "commit", "-qm", "init"]):
        _run(cmd, proj, env)
    return proj, env, _run(["dvc", "repro"], proj, env), served


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def checks(proj: Path, env: dict, log: str, served: list[str]) -> dict[str, bool]:
    def read(name: str):
        return json.loads((proj / name).read_text())

    folds = read("data/folds.json")
    training = {r: read(f"reports/{r}.json")["folds"] for r in
                ("page_scorer_training", "page_scorer_hn_training", "reranker_training")}
    metrics, best = read("reports/metrics.json"), read("reports/best_selection.json")
    per_q = _jsonl(proj / "reports/per_question/fingap_best__standard.jsonl")
    answers = _jsonl(proj / "data/answers_checked/fingap_best__standard.jsonl")
    row = read("reports/answers.json")["runs"]["fingap_best"]["standard"]
    out = _run(["fingap", "ask", "What was ACME's FY2022 capital expenditure, in USD millions?"],
               proj, env)
    delta = next((r for r in per_q if r["question_id"] == "u_delta"),
                 {"retrieved": [[None, COVER_DOC]]})  # (no questions: nothing to route)
    return {
        "one fold serving every question": folds["n_folds"] == 1 and "no_gold" in folds
        and folds["folds"][0]["serve_questions"] == served,
        "no trainer trained": all([r["trained"] for r in rows] == [False]
                                  for rows in training.values()),
        "no metric": metrics["questions"]["n_evaluated"] == 0
        and metrics["questions"].get("n_no_gold", 0) == len(served) and "no_gold" in metrics
        and metrics["fingap_best"]["standard"] == {"n": 0},
        "the log says why": "no gold evidence" in log,
        "no retrieval headline": not [k for k in read("reports/headline.json")
                                      if "PageRec" in k or "DocRec" in k],
        "fingap best is best.no_gold": best["no_gold"]["method"]
        == best["folds"]["0"]["method"] == "page_scorer_hn_page_order_routed",
        "every question retrieved, none scored": sorted(r["question_id"] for r in per_q)
        == served and all(r["scored"] is False and r["retrieved"] for r in per_q),
        "routed to the filing its cover names": delta["retrieved"][0][1] == COVER_DOC,
        "every question answered": sorted(a["question_id"] for a in answers) == served
        and row["n"] == 0 and row.get("n_answered_unscored", 0) == len(served),
        "fingap ask says what fingap best fell back to":
            "retrieval: fingap_best -> page_scorer_hn_page_order_routed" in out
            and "no gold evidence to choose on: best.no_gold" in out,
        "fingap ask answers from the statement page": "answer: $1,577.00 million" in out
        and "verified: yes" in out,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", action="store_true", help="keep the project (path printed)")
    ap.add_argument("--no-questions", action="store_true",
                    help="no questions file at all (corpus.questions: \"\")")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="fingap-no-gold-"))
    proj, env, log, served = build(root, args.no_questions)
    result = checks(proj, env, log, served)
    print(json.dumps({"served": served, "checks": result}, indent=1))
    if args.keep:
        print(f"project kept at {proj}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(0 if all(result.values()) else 1)


if __name__ == "__main__":
    main()
