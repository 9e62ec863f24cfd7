"""End to end: the real `dvc repro` on a tiny corpus that the test writes itself."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from .conftest import (
    USER_NAMES,
    append_statement_page,
    make_user_corpus,
    user_corpus_params,
)

REPO = Path(__file__).resolve().parents[1]
ACME = USER_NAMES["ACME_2022_10K"]  # the annual report with a statement page
E2E_CHUNK = {"size": 16, "overlap": 4}  # the tiny corpus's chunking: several chunks a page
# the params sections whose model is the bundled MiniLM by default (SPLADE-tiny is tiny already)
MINILM_PARAMS = (("dense", "model"), ("reranker_train", "model"), ("reranker", "base_model"),
                 ("page_scorer_train", "model"), ("page_reranker", "model"))


def one_layer_minilm(dest: Path) -> Path:
    """The bundled MiniLM cut to its first transformer layer, saved as a local model.

    Every bi- and cross-encoder of the e2e run loads it by path: the same tokenizer (so the
    same chunks), the same loading, training and encoding code, at a sixth of the layers. The
    pipeline's plumbing is what this test checks; the model's quality is measured elsewhere."""
    from sentence_transformers import SentenceTransformer

    from fingap.core.models import resolve_model

    model = SentenceTransformer(resolve_model("minilm"), device="cpu")
    bert = model[0].auto_model
    bert.encoder.layer = bert.encoder.layer[:1]
    bert.config.num_hidden_layers = 1
    model.save(str(dest))
    return dest


def tiny_params(params: dict, tiny_model: Path) -> None:
    """The e2e run's parameters, in place (``params``: params.yaml and studies/params.yaml
    merged, as fingap reads them): the one-layer MiniLM everywhere, 3 folds, short training and
    short LLM replies (maintainers/check_tiny_identical.py builds the same project)."""
    for sec, key in MINILM_PARAMS:
        assert params[sec][key] == "minilm", (sec, key)
        params[sec][key] = str(tiny_model)
    params["folds"]["n_folds"] = 3  # the tiny corpus has 3 documents with questions
    params["page_scorer_train"].update(epochs=2, batch_size=2, max_seq_length=64)
    params["page_scorer_hn"].update(epochs=2, synthetic_per_doc=2)  # fact-store questions too
    # and LLM-written (doc2query) ones: one page of each fold's fit document (tiny pages)
    if "doc2query" in params:  # (absent before the doc2query stage existed)
        params["doc2query"].update(per_doc=1, min_chars=0, max_new_tokens=24)
    params["page_windows"].update(epochs=2, overlap=16)  # windows of 62 tokens, 46 apart
    params["reranker_train"].update(epochs=1, batch_size=4, max_length=64)
    params["page_reranker"].update(epochs=1, batch_size=4, max_length=64)
    params["chunk"].update(E2E_CHUNK)
    # the real bundled LLM, with short replies: the point is the plumbing and the cache
    params["llm"].update(batch_size=4)
    params["hyde"].update(max_new_tokens=12, subquery_max_new_tokens=24)
    params["generate"].update(max_new_tokens=8)
    # one stage on a local Ray cluster (the others' Ray runs: tests/steps/test_compute_engines)
    if "compute" in params:  # (absent before compute.engine existed)
        params["compute"].update(engine="ray", workers=1, stages=["extract"])


PARAM_FILES = ("params.yaml", "studies/params.yaml")
OWN_SET_QUESTIONS_KEPT = 3


def trim_own_sets(proj: Path, keep: int = OWN_SET_QUESTIONS_KEPT) -> None:
    """Keep the first ``keep`` questions of each of the project's own question sets
    (annotations/*_questions.jsonl). Their filings are not in the tiny corpus, so every one
    is answered the same way, without a page; the answer stage still reads, answers and
    scores each set, and the tiny run's four repros no longer answer all 835 of them."""
    for path in sorted((proj / "annotations").glob("*_questions.jsonl")):
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(lines[:keep]))


def write_tiny_params(proj: Path, tiny_model: Path, overrides: list[str] = ()) -> None:
    """Both params files of ``proj`` with tiny_params applied, each section kept in its file
    (an older checkout without studies/params.yaml keeps every section in params.yaml);
    ``overrides``: SECTION.KEY=VALUE, applied where the section exists."""
    files = {name: yaml.safe_load((proj / name).read_text())
             for name in PARAM_FILES if (proj / name).exists()}
    merged = {sec: body for params in files.values() for sec, body in params.items()}
    tiny_params(merged, tiny_model)  # the sections are the same dicts as in files
    for item in overrides:
        dotted, _, value = item.partition("=")
        sec, _, key = dotted.partition(".")
        if sec in merged:
            merged[sec][key] = yaml.safe_load(value)
    for name, params in files.items():
        (proj / name).write_text(yaml.safe_dump(params, sort_keys=False))


def _run(cmd: list[str], cwd: Path, env: dict) -> str:
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p.stdout + p.stderr


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    proj = root / "proj"
    proj.mkdir()
    (proj / "studies").mkdir()
    for name in ("dvc.yaml", "params.yaml", ".gitignore", "studies/dvc.yaml",
                 "studies/params.yaml"):
        shutil.copy(REPO / name, proj / name)
    for name in ("stages", "src", "annotations"):
        shutil.copytree(REPO / name, proj / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    trim_own_sets(proj)
    # a user's own corpus (corpus.layout: folder): renamed filings, among them a short one
    # that only its cover page describes, a metadata CSV with the user's column names and
    # questions in FinanceBench's format. Its absolute corpus.dir is found from the copies that
    # queued and --temp experiments run in.
    corpus = make_user_corpus(root / "shared" / "my_filings")
    # a real statement page (positioned columns) for the tables stage and the answer agent
    append_statement_page(corpus / "filings" / f"{ACME}.pdf")
    write_tiny_params(proj, one_layer_minilm(root / "minilm_1layer"), [
        f"corpus.{key}={json.dumps(value)}"
        for key, value in user_corpus_params(corpus).items()])
    env = dict(os.environ)
    env.pop("MLFLOW_TRACKING_URI", None)
    env.pop("FINANCEBENCH_DIR", None)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["DVC_NO_ANALYTICS"] = "1"
    for cmd in (["git", "init", "-q"], ["git", "config", "user.email", "t@example.com"],
                ["git", "config", "user.name", "test"], ["dvc", "init", "-q"],
                ["git", "add", "-A"], ["git", "commit", "-qm", "init"]):
        _run(cmd, proj, env)
    log = _run(["dvc", "repro"], proj, env)  # the product
    # the first run's results, for the forced rerun to match
    for src, name in FIRST_RUN.items():
        shutil.copy(proj / src, root / name)
    forced = _start_forced_rerun(proj, env)  # on the second core, beside the studies and tests
    # then the studies, while the tests that read only the product's outputs and run no DVC
    # command (they come first in this file) run beside them; `studied` waits for them
    with open(root / "studies_repro.log", "w") as studies_log:
        studies = subprocess.Popen(["dvc", "repro", "studies/dvc.yaml"], cwd=proj, env=env,
                                   stdout=studies_log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        _FORCED["run"] = forced
        _STUDIES["run"] = studies
        yield proj, env, log
    finally:
        for run in (forced[1], studies):
            if run.poll() is None:  # the module failed before its test waited: stop it all
                os.killpg(run.pid, 9)
                run.wait()


_STUDIES: dict = {}  # the studies repro the project fixture started


@pytest.fixture(scope="module")
def studied(project):
    """The project once its studies repro has finished (every test that runs a DVC command or
    reads a study's output asks for this one)."""
    proj = project[0]
    run = _STUDIES["run"]
    assert run.wait(timeout=1800) == 0, (proj.parent / "studies_repro.log").read_text()[-3000:]
    return project


FIRST_RUN = {"reports/metrics.json": "first_metrics.json",
             "data/answers/dense__standard.jsonl": "first_answers.jsonl"}
_FORCED: dict = {}  # the forced rerun the project fixture started: (copy, process)
# The stages the forced rerun runs again, in pipeline order (`--single-item` runs them in the
# order given): each one that could give other bytes on a second run (seeded training, the LLM
# stages' reply caches, extraction on the Ray engine, encoding with a trained model, the answer
# agent, the fold choice), the evaluation whose metrics the test compares, and last the two
# that read wall times (the training reports' and the stages' own records). Every other stage
# is a pure function of these stages' outputs and its params. (A forced rerun of every stage
# cost about 7 of the suite's 25 CPU-minutes, most of it DVC's per-stage overhead and model
# imports.)
FORCED = ("extract", "tables", "train_reranker", "train_page_scorer", "page_index@trained",
          "doc2query", "train_page_scorer_hn", "hyde", "select_best", "generate", "evaluate",
          "answer", "track", "timings")


def _start_forced_rerun(proj: Path, env: dict) -> tuple[Path, subprocess.Popen]:
    """`dvc repro --force --single-item` of the FORCED stages in a copy of the built project,
    started as soon as the product is built.

    The copy sits beside the project (so the default ../shared corpus resolves the same way)
    and leaves out DVC's tmp; its DVC cache holds hard links to the original's objects (DVC
    never rewrites an object, it only adds new ones), so that `dvc status` finds the outputs
    of the stages not rerun in the cache as well as in the workspace. It runs while the
    studies and the other tests use the original, on the second core. Its test waits for it
    last."""
    copy = proj.parent / "proj_forced"

    def dvc_cache_and_tmp(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if Path(folder) == proj / ".dvc" and n in ("cache", "tmp")]

    shutil.copytree(proj, copy, symlinks=True, ignore=dvc_cache_and_tmp)
    shutil.copytree(proj / ".dvc/cache", copy / ".dvc/cache", copy_function=os.link)
    with open(proj.parent / "forced_rerun.log", "w") as log:
        run = subprocess.Popen(["dvc", "repro", "--force", "--single-item", *FORCED], cwd=copy,
                               env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    return copy, run


@pytest.fixture(scope="module")
def forced_rerun(project):
    return _FORCED["run"]


def test_metrics_contract_and_oracle_page(project):
    proj, _, log = project
    metrics = json.loads((proj / "reports/metrics.json").read_text())
    assert metrics["questions"] == {"n_total": 6, "n_evaluated": 4, "n_missing_doc": 1,
                                    "n_failed_extraction": 0, "n_docs_failed": 0,
                                    "n_no_gold": 1}
    generated = {tuple(r) for r in yaml.safe_load(
        (proj / "params.yaml").read_text())["generate"]["runs"]}
    retrieval_keys = {"DocRec@5", "PageRec@5", "BLEU@5", "ROUGE-L@5", "n"}
    answer_keys = {"AnsROUGE-L", "NumMatch", "n_metrics_generated", "NumMatch_numeric",
                   "n_numeric", "gen_failed"}
    for method in params_methods(proj):
        assert set(metrics[method]) == {"standard", "oracle_doc", "oracle_page"}
        for cond, row in metrics[method].items():
            expected = retrieval_keys | (answer_keys if (method, cond) in generated else set())
            assert set(row) == expected, (method, cond)
            assert row["n"] == 4
            if (method, cond) in generated:
                assert row["gen_failed"] == 0 and row["n_metrics_generated"] == 1
                assert row["n_numeric"] == 4  # every tiny gold answer has a number
        assert metrics[method]["oracle_page"]["PageRec@5"] == 1.0
        assert metrics[method]["oracle_doc"]["DocRec@5"] == 1.0
    assert metrics["extraction"]["gold_alignment"]["rate"] == 1.0
    assert "on ray (1 workers)" in log  # the extract stage ran as a Ray Data job


def test_tables_and_answer_stages(project):
    proj, _, _ = project
    tables = json.loads((proj / "reports/tables.json").read_text())
    assert tables["n_docs"] == 4 and tables["statements"]["cash_flow"] >= 10  # 4 filings
    answers = json.loads((proj / "reports/answers.json").read_text())
    runs = yaml.safe_load((proj / "params.yaml").read_text())["generate"]["runs"]
    keys = {"StrictAcc", "StrictAcc_numeric", "NumericRecall@5", "Verified", "Abstained",
            "Reliability", "Coverage"}
    for method, cond in runs:
        assert keys <= set(answers["runs"][method][cond]), (method, cond)
        assert answers["runs"][method][cond]["n"] == 4  # scored; u_delta answered beside them
        assert answers["runs"][method][cond]["n_answered_unscored"] == 1
    # q1 under Oracle-Page: its gold page is prose, so the agent follows up inside the gold
    # document, finds capex on the statement page, computes and verifies it
    recs = {r["question_id"]: r for r in map(json.loads, (
        proj / "data/answers_checked/page_scorer__oracle_page.jsonl").read_text().splitlines())}
    q1 = recs["q1"]
    assert q1["path"] == "structured" and q1["verified"] and q1["value"] == 1577.0
    assert q1["inputs"][0]["source"] == "follow_up" and q1["inputs"][0]["page"] == 4
    assert answers["runs"]["page_scorer"]["oracle_page"]["StrictAcc"] == 1.0  # q1 is the MG one
    # the meaning gate ran on it (abstain is the default): its label scores and confidence
    assert q1["gate"]["labels"] and q1["confidence"] == min(q1["gate"]["labels"].values()) > 0
    selective = answers["runs"]["page_scorer"]["oracle_page"]["selective"]
    assert selective["verified"] == selective["verified_correct"] == 1
    assert selective["VerifiedPrecision_CI95"] and selective["AURC"] == 0.0
    assert (proj / "reports/plots/risk_coverage.png").stat().st_size > 0
    assert "page_scorer/oracle_page" in (proj / "reports/plots/risk_coverage.csv").read_text()
    # a figure the structured path cannot verify is withheld, with the reason
    withheld = [r for r in recs.values() if r["path"] == "withheld"]
    assert all(r["abstained"] and r["value"] is None and "llm_figures" in r["reason"]
               for r in withheld)


def test_fingap_ask_on_the_built_indexes(project):
    proj, env, _ = project
    out = _run(["fingap", "ask", "What was ACME's FY2022 capital expenditure, in USD millions?",
                "--method", "bm25"], proj, env)
    assert "answer: $1,577.00 million" in out and "verified: yes" in out
    assert f"{ACME} page 4" in out  # the statement page, cited
    bad = subprocess.run(["fingap", "ask", "capex?", "--method", "nosuch"], cwd=proj, env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "valid methods" in bad.stderr + bad.stdout
    # fingap best (the default method) on a question the pipeline never saw: the models of the
    # fold that held its document out, said in the output
    out = _run(["fingap", "ask", "How much did ACME spend on capital expenditure in FY2022, "
                "in USD millions?", "--condition", "oracle_doc", "--doc", ACME],
               proj, env)
    assert "retrieval: fingap_best -> page_" in out and \
        f"(the fold that held out {ACME})" in out
    assert "answer: $1,577.00 million" in out
    out = _run(["fingap", "search", "capital expenditure", "--method",
                "page_scorer_hn_page_order", "-k", "2"], proj, env)
    assert "fold" in out and "1. " in out and "2. " in out
    # the statement-table rows, found by meaning through their dense index
    out = _run(["fingap", "search", "money spent on plant and equipment", "--method",
                "table_rows_dense", "-k", "3"], proj, env)
    assert f"{ACME}  page 4" in out


def test_routed_methods_serve_new_questions(project):
    proj, env, _ = project
    # the untrained routed row, for a question the pipeline never saw: routed at ask time
    out = _run(["fingap", "ask", "How much did ACME spend on capital expenditure in FY2022, "
                "in USD millions?", "--method", "page_scorer_untrained_routed"], proj, env)
    assert "retrieval: page_scorer_untrained_routed" in out and \
        f"routed to {ACME}" in out, out
    # fingap best, asked again for every evaluated question (its own fold, no document): the
    # same top-5 chunks as its run in data/runs (a fold whose choice reads HyDE passages made
    # for the evaluated questions only: as the run of the candidate that replaces it)
    script = ("import json; from fingap.steps.adhoc import replay_evaluated; "
              "print(json.dumps(replay_evaluated('fingap_best')))")
    out = _run([sys.executable, "-c", script], proj, env)  # stdout, then stderr's progress
    replay = json.loads(next(line for line in reversed(out.splitlines()) if line.startswith("{")))
    assert replay["n"] == 4 and replay["same_topk"] == replay["n"], replay


def test_headline_metrics_are_the_dvc_metrics(studied):
    proj, env, _ = studied
    headline = json.loads((proj / "reports/headline.json").read_text())
    assert {"best.PageRec@5", "best.DocRec@5", "scorer.PageRec@5.oracle_doc", "best.StrictAcc",
            "oracle_page.StrictAcc", "heldout.StrictAcc"} <= set(headline)
    metrics = json.loads((proj / "reports/metrics.json").read_text())
    assert headline["best.PageRec@5"] == round(metrics["fingap_best"]["standard"]["PageRec@5"], 4)
    shown = json.loads(_run(["dvc", "metrics", "show", "--json"], proj, env))
    files = {f for v in shown.values() for f in v.get("data", {})}
    assert files == {"reports/headline.json"}


def params_methods(proj: Path, section: str = "evaluate") -> list[str]:
    name = "params.yaml" if section == "evaluate" else "studies/params.yaml"
    return yaml.safe_load((proj / name).read_text())[section]["methods"]


def test_tables_have_their_rows(studied):
    proj, _, _ = studied
    table = (proj / "reports/retrieval.md").read_text()
    for row in ("| BM25 |", "| Dense |", "| BM25 (Oracle-Doc) |", "| Dense (Oracle-Page) |",
                "| SPLADE |", "| Hybrid (BM25 + Dense, RRF) |", "| Parent-Child |",
                "| Query expansion (Dense) |", "| Dense + ReRanker |", "| Learned page scorer |",
                "| Learned page scorer + ReRanker |", "| Untrained page scorer (base model) |",
                "| Dense + untrained ReRanker |", "| Learned page scorer + BM25 (RRF) |",
                "| Page scorer, ordered by page score |", "| HyDE (Dense) |",
                "| Multi-HyDE (Dense) |", "| Dense + Multi-HyDE + ReRanker |",
                "| Learned page scorer + Multi-HyDE |",
                "| Page-level hybrid, ordered by page score |",
                "| Hard-negative page scorer (Algorithm 1) |",
                "| Hard-negative page scorer, ordered by page score |",
                "| Page-level hybrid, hard-negative scorer |",
                "| Page scorer ensemble, ordered by page score |",
                "| Learned page scorer, routed to the top-D documents |",
                "| fingap best (chosen per fold on the other folds) |",
                "| Learned page scorer (Oracle-Page) |"):
        assert row in table
    # the studies' rows are in the studies' own report, never in the product's
    studies = (proj / "reports/studies/retrieval.md").read_text()
    for row in ("| Hard-negative page scorer on whole pages, best window |",
                "| Hard-negative page scorer on whole pages, mean of windows |",
                "| Page reranker (cross-encoder) over the routed hard-negative scorer's top "
                "pages |",
                "| Untrained page reranker over the routed hard-negative scorer's top pages |",
                "| Late interaction (MaxSim) over the routed hard-negative scorer's top pages, "
                "that scorer's token vectors |",
                "| Late interaction (MaxSim) over the routed hard-negative scorer's top pages, "
                "base model's token vectors |",
                "| Hard-negative page scorer on whole pages, best window, routed to the top-D "
                "documents |"):
        assert row in studies and row not in table
    assert "Paired bootstrap 95% confidence intervals" in studies
    assert "## Generation" in table
    best = json.loads((proj / "reports/best_selection.json").read_text())
    assert set(best["folds"]) == {"0", "1", "2"}
    multi = [json.loads(x) for x in
             (proj / "data/hyde/multi_hyde.jsonl").read_text().splitlines()]
    assert len(multi) == 5 and all(len(m["passages"]) == 4 for m in multi)  # u_delta too
    hn = json.loads((proj / "reports/page_scorer_hn_training.json").read_text())
    assert len(hn["folds"]) == 3 and all(len(f["val_curve"]) >= 1 for f in hn["folds"])
    # ACME's statement page gives synthetic questions to the folds that train on ACME
    facts = (proj / "data/synthetic/facts.jsonl").read_text().splitlines()
    assert facts and all(ACME in f for f in facts)
    assert all("n_synthetic_questions" in f for f in hn["folds"])
    # doc2query asked the bundled LLM about one page of each fold's one fit document; the
    # 135M model's replies that are no question are counted, not trained on
    d2q = json.loads((proj / "reports/doc2query.json").read_text())
    assert [f["questions"] + f["rejected_replies"] for f in d2q["folds"]] == [1, 1, 1]
    written = (proj / "data/synthetic/doc2query.jsonl").read_text().splitlines()
    assert len(written) == sum(f["questions"] for f in d2q["folds"])
    if written:
        assert all("n_doc2query_questions" in f for f in hn["folds"])
    assert "| Epoch |" in (proj / "reports/page_scorer_hn.md").read_text()
    hnw = json.loads((proj / "reports/page_scorer_hn_windows_training.json").read_text())
    assert len(hnw["folds"]) == 3 and hnw["windows"] == {"overlap": 16, "normalise": True}
    windows = json.loads((proj / "data/page_index/hn_windows/stats.json").read_text())
    assert windows["windows"]["n_windows"] >= windows["n_pages"] == 14  # with the 4-page one
    rr = json.loads((proj / "reports/page_reranker_training.json").read_text())
    assert len(rr["folds"]) == 3 and all(f["n_positives"] >= 1 for f in rr["folds"])
    assert [r["epoch"] for r in rr["learning_curve"]] == [1]
    assert "## P ablation" in table and "| 5 |" in table
    assert "Paired bootstrap 95% confidence intervals" in table
    assert (proj / "reports/plots/by_question_type.png").stat().st_size > 1000
    gap = json.loads((proj / "reports/gap.json").read_text())["overall"]
    assert gap["n_gold_pages"] == 5  # q1: 1, q2: 2 (a set), q3: 1, q4: 1
    assert sum(gap[k] for k in ("found", "wrong_document", "not_in_top_P",
                                "not_in_final_k")) == 5
    assert "n evaluated = 4, n missing doc = 1" in table
    assert "10K (n=2)" in table and "10Q (n=1)" in table and "8K (n=1)" in table
    per_q = [json.loads(r) for r in
             (proj / "reports/per_question/dense__standard.jsonl").read_text().splitlines()]
    assert len(per_q) == 5 and sum("PageRec" in r for r in per_q) == 4
    # the question without gold evidence: retrieved and answered, never scored
    (unscored,) = [r for r in per_q if r["question_id"] == "u_delta"]
    assert unscored["scored"] is False and unscored["retrieved"]
    answered = (proj / "data/answers_checked/fingap_best__standard.jsonl").read_text()
    assert '"question_id": "u_delta"' in answered
    assert "Questions without gold evidence (retrieved and answered, not scored): 1" in table


def test_mlflow_run_logged(studied):
    import mlflow

    proj, _, _ = studied
    run_id = json.loads((proj / "reports/mlflow_run.json").read_text())["parent_run_id"]
    mlflow.set_tracking_uri(f"sqlite:///{proj / 'mlflow.db'}")
    children = mlflow.search_runs(experiment_names=["fingap"],
                                  filter_string=f"tags.mlflow.parentRunId = '{run_id}'")
    assert len(children) == len(params_methods(proj)) * 3  # every method x 3 conditions
    # the selective-answer metrics of every answered run, and the risk-coverage plot
    parent = mlflow.get_run(run_id)
    assert {"answers.page_scorer.oracle_page.Coverage",
            "answers.page_scorer.oracle_page.AURC"} <= set(parent.data.metrics)
    artifacts = {a.path for a in mlflow.MlflowClient().list_artifacts(run_id)}
    assert {"answers.md", "risk_coverage.png"} <= artifacts
    # the studies' run: its rows, tagged with the product run it read and its training runs
    study_id = json.loads((proj / "reports/studies/mlflow_run.json").read_text())["parent_run_id"]
    study = mlflow.get_run(study_id)
    assert study.data.tags["product_run_id"] == run_id and study.data.tags["pipeline"] == "studies"
    assert {"page_reranker_training_run_id", "page_scorer_hn_windows_training_run_id"} <= \
        set(study.data.tags)
    assert "page_reranker_training_run_id" not in parent.data.tags
    children = mlflow.search_runs(experiment_names=["fingap"],
                                  filter_string=f"tags.mlflow.parentRunId = '{study_id}'")
    assert len(children) == len(params_methods(proj, "studies_evaluate")) * 3


def _reran(log: str) -> set[str]:
    """Stages a `dvc repro` ran or restored from DVC's run cache (i.e. whose inputs changed)."""
    out = set()
    for line in log.splitlines():
        if line.startswith("Running stage '") or (line.startswith("Stage '")
                                                  and "is cached" in line):
            out.add(line.split("'")[1])
    return out


def _set_params(proj: Path, **changes: dict) -> None:
    params = yaml.safe_load((proj / "params.yaml").read_text())
    for sec, values in changes.items():
        params[sec].update(values)
    (proj / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


def test_every_stage_records_its_wall_time(studied):
    from fingap.core.timings import dvc_stage_names

    proj, _, _ = studied
    for dvc_yaml, summary_path, own in (
            ("dvc.yaml", "reports/timings.json", "timings"),
            ("studies/dvc.yaml", "reports/studies/timings.json", "studies_timings")):
        summary = json.loads((proj / summary_path).read_text())
        stages = set(dvc_stage_names(yaml.safe_load((proj / dvc_yaml).read_text()))) - {own}
        assert set(summary["stages"]) == stages and summary["never_run"] == []
        assert not any(v["cached"] for v in summary["stages"].values())  # all ran in this repro
        assert summary["full_run_seconds"] == pytest.approx(
            sum(v["seconds"] for v in summary["stages"].values()), abs=0.01)


def _would_rerun(proj: Path, env: dict) -> set[str]:
    """The stages `dvc repro` would run now: each stage `dvc status` lists (but corpus, which
    re-hashes the corpus on every repro and leaves its outputs be) and every stage downstream
    of one in DVC's own graph. This is DVC's rule, without paying for the runs (the queued
    sweep below runs a partial repro for real)."""
    import networkx as nx
    from dvc.repo import Repo

    changed = {name.rsplit(":", 1)[-1] for target in ("dvc.yaml", "studies/dvc.yaml")
               for name in json.loads(_run(["dvc", "status", "--json", target], proj, env))}
    changed -= {"corpus"}
    with Repo(str(proj)) as repo:
        graph = repo.index.graph  # both pipelines; edges point from a stage to its inputs'
        by_name = {s.name: s for s in graph}  # (stage names are unique across the two)
        out = set(changed)
        for name in changed:
            out |= {s.name for s in nx.ancestors(graph, by_name[name])}
    return out


def test_repro_again_reruns_nothing_and_deps_are_exact(studied):
    proj, env, _ = studied
    # the studies read the product's outputs, unchanged: only the corpus re-validation (whose
    # wall-time record is the product's)
    assert _reran(_run(["dvc", "repro", "studies/dvc.yaml"], proj, env)) == {"corpus"}
    log = _run(["dvc", "repro"], proj, env)
    # only the corpus re-validation (same manifest) and the timings summary of its new time
    assert _reran(log) == {"corpus", "timings"}
    summary = json.loads((proj / "reports/timings.json").read_text())
    assert summary["stages"]["corpus"]["cached"] is False
    assert summary["stages"]["chunk"]["cached"] is True
    assert _changed_stages(_run(["dvc", "status"], proj, env)) <= {"corpus"}
    assert _changed_stages(_run(["dvc", "status", "studies/dvc.yaml"], proj, env)) <= {"corpus"}
    assert _would_rerun(proj, env) == set()
    p0 = yaml.safe_load((proj / "params.yaml").read_text())["page_scorer"]["P"]
    try:
        # chunk.size reruns chunking and what follows, never extraction or training
        _set_params(proj, chunk={"size": 1024, "overlap": 128})
        ran = _would_rerun(proj, env)
        assert {"chunk", "index@dense", "index@bm25", "retrieve_pages@page_scorer"} <= ran
        assert not ran & {"extract", "folds", "train_page_scorer", "train_reranker",
                          "train_page_scorer_hn", "page_index@trained", "page_index@untrained",
                          "page_index@hn", "route_docs", "hyde", "tables"}
        _set_params(proj, chunk=E2E_CHUNK)
        # a BM25 parameter never reruns the dense stages
        _set_params(proj, bm25={"k1": 1.2})
        ran = _would_rerun(proj, env)
        assert {"index@bm25", "retrieve@bm25", "retrieve_zoo@hybrid"} <= ran
        assert not ran & {"index@dense", "retrieve@dense", "retrieve_pages@page_scorer",
                          "train_page_scorer_hn", "chunk"}
        _set_params(proj, bm25={"k1": 1.5})
        # a routing weight reruns the routed rows only
        _set_params(proj, routing={"top_docs": 2})
        ran = _would_rerun(proj, env)
        assert {"retrieve_pages_routed@page_scorer_routed",
                "retrieve_zoo@page_scorer_hn_page_order_routed",
                "retrieve_zoo@page_scorer_hn_page_order_routed_hedged",
                "retrieve_pages_windows_routed@page_scorer_hn_windows_maxp_routed",
                "page_heads_maxsim@page_maxsim_routed",
                "retrieve_pages_maxsim@page_maxsim_routed"} <= ran
        assert not ran & {"route_docs", "retrieve_pages@page_scorer",
                          "retrieve_zoo@page_scorer_hn_page_order", "page_index_windows",
                          "retrieve_pages_windows@page_scorer_hn_windows_maxp"}
        _set_params(proj, routing={"top_docs": 1})
        # page_scorer.P reruns the page-scorer retrieval and what reads it, in both pipelines;
        # never training, indexing, the LLM stages, the P-free heads or the P ablation rows
        _set_params(proj, page_scorer={"P": p0 // 2})
        ran = _would_rerun(proj, env)
        assert {"retrieve_pages@page_scorer", "retrieve_zoo@page_scorer_hn_page_order_routed",
                "select_best", "answer", "retrieve_pages_maxsim@page_maxsim_routed",
                "retrieve_pages_reranked@page_reranker_routed",
                "retrieve_pages_windows@page_scorer_hn_windows_maxp"} <= ran
        assert not ran & {"train_page_scorer", "page_index@trained", "retrieve@dense",
                          "retrieve_pages@page_scorer_p5", "index@bm25", "chunk", "hyde",
                          "page_heads_maxsim@page_maxsim_routed", "train_page_reranker",
                          "page_heads_reranked@page_reranker_routed"}
    finally:
        _set_params(proj, chunk=E2E_CHUNK, bm25={"k1": 1.5}, routing={"top_docs": 1},
                    page_scorer={"P": p0})
    assert _would_rerun(proj, env) == set()


def test_queued_sweep_runs_in_dvc_copies_and_shows_in_exp_show(studied):
    """`dvc exp run --queue` over two values of the gate's label threshold, then `dvc queue
    start`: each experiment runs in a copy under .dvc/tmp/exps, where the default corpus
    location (../shared/financebench beside the repository) must still resolve. (The swept
    parameter is read by the answer stage alone, so the sweep costs a few stages; what a
    page_scorer.P change reruns is checked above, by DVC's own status.)"""
    proj, env, _ = studied
    # the baseline committed, lock included: a queued copy then reruns only what the sweep
    # changes
    _run(["git", "add", "-A"], proj, env)
    _run(["git", "commit", "-qm", "baseline"], proj, env)
    for threshold in (0.6, 0.8):
        _run(["dvc", "exp", "run", "--queue", "-S", f"answer.label_threshold={threshold}",
              "dvc.yaml", "studies/dvc.yaml"], proj, env)  # a user sweeps both pipelines
    # both at once, one per core, each with one compute thread (docs/pipeline.md: N workers on
    # N cores; the forced rerun shares the cores too). Its output goes to a file, not a pipe:
    # the workers it leaves behind inherit its stdout, and a pipe would hold this test until the
    # last one exits.
    one_thread = dict(env, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    with open(proj.parent / "queue_start.log", "w") as log:
        subprocess.run(["dvc", "queue", "start", "-j", "2"], cwd=proj, env=one_thread,
                       stdout=log, stderr=subprocess.STDOUT, check=True)
    deadline = time.time() + 1200
    status = ""
    while time.time() < deadline:
        status = _run(["dvc", "queue", "status"], proj, env)
        if "Queued" not in status and "Running" not in status:
            break
        time.sleep(1)
    _stop_idle_workers(proj)
    assert status.count("Success") == 2 and "Failed" not in status, status
    shown = json.loads(_run(["dvc", "exp", "show", "--json"], proj, env))
    revs = [r for row in shown for e in (row.get("experiments") or []) for r in e["revs"]]
    runs = {r["data"]["params"]["params.yaml"]["data"]["answer"]["label_threshold"]:
            r["data"]["metrics"]["reports/headline.json"]["data"] for r in revs}
    assert {0.6, 0.8} <= set(runs) and all("best.PageRec@5" in m for m in runs.values())
    # the threshold reruns the answer stage (and the records that read it), nothing upstream
    name = {r["data"]["params"]["params.yaml"]["data"]["answer"]["label_threshold"]: r["name"]
            for r in revs}[0.6]
    queue_log = _run(["dvc", "queue", "logs", name], proj, env)
    ran = _reran(queue_log)
    assert "answer" in ran
    assert not ran & {"retrieve_pages@page_scorer", "select_best", "evaluate",
                      "train_page_scorer", "studies/dvc.yaml:studies_evaluate"}
    # hyde and generate rerun in a copy (DVC copies no persist output, and their LLM reply
    # caches are ones), but from the workspace's replies: no LLM call
    assert {"hyde", "generate"} <= ran and "'llm_calls': 0" in queue_log
    assert not re.search(r"'llm_calls': [1-9]", queue_log), queue_log
    # what a user reads in a 160-column terminal: the swept parameter, every line within it
    wide = dict(env, COLUMNS="160")
    # (the README's command: the changed data and report files are dropped, leaving the swept
    # params beside the headline metrics)
    table = _run(["dvc", "exp", "show", "--only-changed", "--drop",
                  "^(data|models|reports)/|params.yaml$", "--no-pager"], proj, wide)
    assert "answer.label_threshold" in table and max(map(len, table.splitlines())) <= 160, table
    diff = _run(["dvc", "metrics", "diff", "--all"], proj, wide)
    assert "best.PageRec@5" in diff and max(map(len, diff.splitlines())) <= 160, diff


def _stop_idle_workers(proj: Path) -> None:
    """Ends the queue's workers once every experiment is done. A worker that decided to shut
    down (empty queue) while its task still ran can outlive the task for good (seen once, on a
    busy machine, with DVC 3's celery workers); left alone it idles and holds the repository's
    caches open for the tests after this one. (An idle worker's own shut-down comes about 10 s
    after its last task: a warm shut-down now, which lets a running task finish, saves that.)"""
    import psutil

    for pid_file in (proj / ".dvc/tmp/exps/celery").glob("dvc-exp-worker-*.pid"):
        try:
            worker = psutil.Process(int(pid_file.read_text().split()[0]))
            if "queue-worker" not in worker.cmdline():  # gone, its pid reused
                continue
        except (ValueError, IndexError, psutil.NoSuchProcess):
            continue
        try:
            worker.terminate()  # a warm shut-down: its tasks have finished (the queue says so)
            worker.wait(timeout=30)
        except psutil.NoSuchProcess:
            continue


def test_bad_param_fails_before_work(studied):
    proj, env, _ = studied
    params = yaml.safe_load((proj / "params.yaml").read_text())
    bad = dict(params, chunk={"size": 128, "overlap": 128})
    (proj / "params.yaml").write_text(yaml.safe_dump(bad, sort_keys=False))
    try:
        p = subprocess.run(["dvc", "repro", "chunk"], cwd=proj, env=env, capture_output=True,
                           text=True)
        assert p.returncode != 0
        assert "chunk.overlap (128) must be smaller than chunk.size (128)" in p.stderr + p.stdout
    finally:
        (proj / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


def _stage_processes(parent_pid: int, script: str = "stages/") -> list[int]:
    """PIDs of running processes under ``parent_pid`` whose command line names ``script``."""
    import psutil

    try:
        children = psutil.Process(parent_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    out = []
    for c in children:
        try:
            if any(script in part for part in c.cmdline()):
                out.append(c.pid)
        except psutil.NoSuchProcess:
            continue
    return out


def test_killed_stage_leaves_nothing_a_later_stage_could_read(studied):
    import signal

    proj, env, _ = studied
    before = (proj / "reports/metrics.json").read_bytes()
    # a stage that always encodes (page embeddings are not cached; chunk and query vectors are,
    # so index@dense would finish before the kill)
    p = subprocess.Popen(["dvc", "repro", "--force", "page_index@untrained"], cwd=proj, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    killed = False
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        if _stage_processes(p.pid, "stages/page_index.py"):
            time.sleep(0.5)  # let it get into its work (loading the model, encoding)
            for pid in _stage_processes(p.pid, "stages/page_index.py"):
                os.kill(pid, signal.SIGKILL)
                killed = True
            break
        time.sleep(0.05)
    p.communicate(timeout=120)
    assert killed and p.returncode != 0
    status = _run(["dvc", "status"], proj, env)
    assert "page_index@untrained" in status  # DVC knows the output is not what the lock says
    _run(["dvc", "repro"], proj, env)  # finishes cleanly
    assert (proj / "reports/metrics.json").read_bytes() == before
    assert _changed_stages(_run(["dvc", "status"], proj, env)) <= {"corpus"}


def test_forced_rerun_is_byte_identical(studied, forced_rerun):
    """`dvc repro --force` of the FORCED stages gives the first run's bytes: the compared
    reports, and every output of every forced stage, for `dvc status` then finds each one as
    the lock recorded it (a changed output would have rewritten its hash in the lock, and the
    stages that read it would show as changed). In the copy the fixture started; last in the
    file, so the tests above overlap it."""
    proj, env, _ = studied
    copy, run = forced_rerun
    log = proj.parent / "forced_rerun.log"
    assert run.wait(timeout=1800) == 0, log.read_text()[-3000:]
    assert _reran(log.read_text()) == set(FORCED)  # each ran again, and nothing else
    for src, name in FIRST_RUN.items():
        assert (copy / src).read_bytes() == (proj.parent / name).read_bytes(), src
    # the LLM stages reran but every reply came from their persist caches
    for report in ("reports/hyde.json", "reports/generation.json"):
        r = json.loads((copy / report).read_text())
        assert r["llm_calls"] == 0 and r["cache_hit_rate"] == 1.0, report
    # (the product's stages: the copy has no DVC cache for the studies' outputs)
    assert _changed_stages(_run(["dvc", "status", "dvc.yaml"], copy, env)) <= {"corpus"}


def _changed_stages(status: str) -> set[str]:
    """Stage names `dvc status` lists (corpus is always listed: it re-hashes the corpus)."""
    return {line[:-1] for line in status.splitlines()
            if line.endswith(":") and not line.startswith((" ", "\t"))}
