"""The ``fingap`` command line: the pipeline's stages for people, plus ``search``.

Stage commands run the project's own ``stages/<name>.py`` (the same code DVC runs), so run them
from the repository root; ``dvc repro`` remains the way to run the pipeline with caching.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import typer

app = typer.Typer(help="fingap: retrieval-gap pipeline for financial QA (FinanceBench).",
                  no_args_is_help=True, add_completion=False)


def _run_stage(name: str, *args: str) -> None:
    script = Path("stages") / f"{name}.py"
    if not script.exists():
        typer.echo(f"error: {script} not found; run fingap from the repository root", err=True)
        raise typer.Exit(2)
    sys.argv = [str(script), *args]
    runpy.run_path(str(script), run_name="__main__")


@app.command()
def corpus() -> None:
    """Locate and validate FinanceBench; write the manifest and questions."""
    _run_stage("corpus")


@app.command()
def extract() -> None:
    """Extract PDF pages with PyMuPDF and check gold alignment."""
    _run_stage("extract")


@app.command()
def chunk() -> None:
    """Split pages into token windows (chunk.size / chunk.overlap)."""
    _run_stage("chunk")


@app.command()
def index(method: str = typer.Argument(..., help="bm25 or dense")) -> None:
    """Build a chunk index."""
    _run_stage("index", method)


@app.command()
def retrieve(method: str = typer.Argument(..., help="bm25 or dense")) -> None:
    """Write run files of one method under every condition."""
    _run_stage("retrieve", method)


@app.command()
def folds() -> None:
    """Assign document-grouped folds (data/folds.json)."""
    _run_stage("folds")


@app.command("train-page-scorer")
def train_page_scorer() -> None:
    """Fine-tune one page scorer per fold (MNR loss)."""
    _run_stage("train_page_scorer")


@app.command("train-page-scorer-hn")
def train_page_scorer_hn() -> None:
    """Hard-negative page scorer per fold, early-stopped on held-out training documents."""
    _run_stage("train_page_scorer_hn")


@app.command("page-index")
def page_index(variant: str = typer.Argument(..., help="trained, untrained or hn")) -> None:
    """Embed every page with the fold models (trained, hn) or the base model (untrained)."""
    _run_stage("page_index", variant)


@app.command("retrieve-pages")
def retrieve_pages(
    method: str = typer.Argument("page_scorer", help="run name under data/runs/"),
    variant: str = typer.Argument("trained", help="trained, untrained or hn"),
    p: str = typer.Argument("", help="P candidate pages (default: page_scorer.P)"),
) -> None:
    """Algorithm 1: top-P pages by the page scorer, then chunk retrieval on them."""
    _run_stage("retrieve_pages", method, variant, p)


@app.command("retrieve-zoo")
def retrieve_zoo(method: str = typer.Argument(..., help="e.g. splade, hybrid, hyde, "
                                              "page_hybrid_page_order")) -> None:
    """One of Table 1's other methods or combinations (fingap.steps.zoo.METHODS)."""
    _run_stage("retrieve_zoo", method)


@app.command("train-reranker")
def train_reranker() -> None:
    """Fine-tune one MiniLM cross-encoder per fold (same-document hard negatives)."""
    _run_stage("train_reranker")


@app.command()
def gap() -> None:
    """Where the gap.method pipeline loses each missed gold page (reports/gap.md)."""
    _run_stage("gap")


@app.command()
def hyde() -> None:
    """Generate HyDE and Multi-HyDE texts per question (LLM replies cached)."""
    _run_stage("hyde")


@app.command("select-best")
def select_best() -> None:
    """The "fingap best" run: per fold, the candidate best on the other folds."""
    _run_stage("select_best")


@app.command()
def generate() -> None:
    """Answer the questions from the top-k chunks of the runs in generate.runs."""
    _run_stage("generate")


@app.command()
def evaluate() -> None:
    """Score the runs; write reports/metrics.json and reports/retrieval.md."""
    _run_stage("evaluate")


@app.command()
def track() -> None:
    """Log the pipeline's results to MLflow."""
    _run_stage("track")


@app.command()
def timings(
    summary: str = typer.Option("reports/timings.json", "--summary",
                                help="the summary the timings stage writes"),
) -> None:
    """Print every stage's last wall time, slowest first, and the full-run total."""
    from .core.io import read_json
    from .core.timings import render

    path = Path(summary)
    if not path.exists():
        typer.echo(f"error: {path} not found; run `dvc repro timings` (or `dvc repro`) first",
                   err=True)
        raise typer.Exit(2)
    typer.echo(render(read_json(path)), nl=False)


@app.command()
def search(
    question: str = typer.Argument(..., help="the question to search for"),
    doc: str = typer.Option(None, "--doc", help="restrict to one document (e.g. 3M_2018_10K)"),
    method: str = typer.Option("bm25", "--method",
                               help="any built retrieval method (bm25, dense, fingap_best, "
                                    "page_scorer, ...), or table_rows / table_rows_dense"),
    k: int = typer.Option(5, "-k", help="number of chunks to show"),
    width: int = typer.Option(300, "--width", help="characters of chunk text to print"),
) -> None:
    """Print the top chunks for a question, with doc, page and score."""
    from .core.io import read_jsonl
    from .steps.adhoc import AdHocQuestion, AdHocRetriever
    from .steps.ask import TABLE_ROWS, TABLE_ROWS_DENSE, AskError, check_method, check_question

    try:
        question = check_question(question)
        if method not in (TABLE_ROWS, TABLE_ROWS_DENSE):
            check_method(method)
    except AskError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    if method in (TABLE_ROWS, TABLE_ROWS_DENSE):
        _search_table_rows(question, doc, k, method)
        return
    chunks_path = Path("data/chunks/chunks.jsonl")
    if not chunks_path.exists():
        typer.echo(f"error: {chunks_path} missing; run `dvc repro chunk` first", err=True)
        raise typer.Exit(2)
    chunks = {c["chunk_id"]: c for c in read_jsonl(chunks_path)}
    if doc and not any(c["doc"] == doc for c in chunks.values()):
        typer.echo(f"error: no chunks for document {doc!r}", err=True)
        raise typer.Exit(2)
    run, prov = AdHocRetriever(method).search([AdHocQuestion("q", question, doc)], k,
                                              "oracle_doc" if doc else "standard")
    if "fold" in prov["q"]:
        from .steps.ask import provenance_line

        typer.echo(provenance_line(prov["q"]) + "\n")
    for rank, (cid, score) in enumerate(run["q"], 1):
        c = chunks[cid]
        text = " ".join(c["text"].split())[:width]
        typer.echo(f"{rank}. {c['doc']}  page {c['page']}  score {score:.4f}  [{cid}]\n   {text}\n")


def _search_table_rows(question: str, doc: str | None, k: int, method: str) -> None:
    """Top statement-table rows for a question ("statement | periods | label | cells"), by BM25
    (``table_rows``) or by the chunk encoder (``table_rows_dense``), with doc and page."""
    import numpy as np

    from .core.io import read_jsonl
    from .core.params import load_params, section
    from .retrieval.loading import load_retriever
    from .steps.ask import TABLE_ROWS_DENSE

    kind = "dense" if method == TABLE_ROWS_DENSE else "bm25"
    index = (Path("data/indexes/table_rows_dense") if kind == "dense"
             else Path("data/facts/rows_bm25"))
    rows_path = Path("data/facts/table_rows.jsonl")
    if not index.is_dir() or not rows_path.exists():
        stage = "index_table_rows" if kind == "dense" else "tables"
        typer.echo(f"error: {index} missing; run `dvc repro {stage}` first", err=True)
        raise typer.Exit(2)
    rows = {r["row_id"]: r for r in read_jsonl(rows_path)}
    retriever = load_retriever(kind, section(load_params(), kind) if kind == "dense" else {},
                               index)
    allowed = None
    if doc:
        ids = np.array([i for i, r in enumerate(retriever.ids) if rows[r]["doc"] == doc])
        if len(ids) == 0:
            typer.echo(f"error: no table rows for document {doc!r}", err=True)
            raise typer.Exit(2)
        allowed = {"q": ids}
    for rank, (rid, score) in enumerate(retriever.search({"q": question}, k, allowed)["q"], 1):
        r = rows[rid]
        typer.echo(f"{rank}. {r['doc']}  page {r['page']}  score {score:.4f}\n   {r['text']}\n")


@app.command()
def tables() -> None:
    """Statement tables of every page -> the numeric fact store (data/facts/facts.sqlite)."""
    _run_stage("tables")


@app.command()
def answer() -> None:
    """Answer the runs of generate.runs with the fact-store agent; reports/answers.json."""
    _run_stage("answer")


@app.command()
def facts(
    doc: str = typer.Option(None, "--doc", help="document, e.g. 3M_2018_10K"),
    label: str = typer.Option(None, "--label",
                              help="line item; a vocabulary term (capex) or printed words"),
    year: int = typer.Option(None, "--year", help="fiscal year"),
    store: str = typer.Option("data/facts/facts.sqlite", "--store", help="fact store file"),
    limit: int = typer.Option(50, "--limit", help="rows to print"),
) -> None:
    """Query the numeric fact store by document, line item and fiscal year."""
    from .answers.fact_store import FactStore
    from .answers.labels import Vocabulary

    if not (doc or label):
        typer.echo("error: give --doc and/or --label", err=True)
        raise typer.Exit(2)
    concept = None
    if label:
        terms = Vocabulary.load().find_terms(label)
        if len(terms) == 1 and terms[0][1] - terms[0][0] == len(" ".join(label.lower().split())):
            concept = terms[0][2]
    try:
        with FactStore(store) as fs:
            rows = fs.query(doc=doc, concept=concept, fiscal_year=year)
            if label and (concept is None or not rows):
                rows = fs.query(doc=doc, label=label, fiscal_year=year)
    except FileNotFoundError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    for r in rows[:limit]:
        scale = r["scale"] or ("%" if r["percent"] else "units")
        typer.echo(f"{r['doc']}  p{r['page']}  {r['statement']:<13} FY{r['fiscal_year']} "
                   f"{r['duration'] or '':<4} {r['label'][:60]:<60} {r['printed']:>12} "
                   f"({scale})" + (f"  [{r['concept']}]" if r["concept"] else ""))
    typer.echo(f"{len(rows)} facts" + (f" (first {limit} shown)" if len(rows) > limit else ""))


@app.command()
def ask(
    question: str = typer.Argument(None, help="one question (or use --questions FILE)"),
    questions: str = typer.Option(None, "--questions", help="FinanceBench-format JSONL file"),
    out: str = typer.Option(None, "--out", help="answers JSONL (with --questions)"),
    condition: str = typer.Option("standard", "--condition",
                                  help="standard, oracle_doc or oracle_page"),
    method: str = typer.Option("fingap_best", "--method",
                               help="built retrieval method: fingap_best, bm25, dense, "
                                    "page_scorer, ..."),
    doc: str = typer.Option(None, "--doc", help="the question's document (oracle_doc)"),
    k: int = typer.Option(5, "-k", help="pages retrieved"),
) -> None:
    """Answer figure questions from the fact store, with formula, cited inputs and the gate."""
    from .steps.ask import AskError, ask_file, ask_one, format_record

    if not question and not questions:
        typer.echo("error: give a question or --questions FILE", err=True)
        raise typer.Exit(2)
    try:
        if questions:
            n = ask_file(Path(questions), Path(out) if out else None, condition, method, k)
            typer.echo(f"answered {n} questions" + (f" -> {out}" if out else ""))
            return
        rec = ask_one(question, condition, method, k, doc)
    except AskError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    typer.echo(format_record(rec))


@app.command("check-parser")
def check_parser_cmd(
    subset: str = typer.Option("ci", "--subset",
                               help="ci (a fixed 8-document subset) or all (every PDF)"),
    docs: str = typer.Option(None, "--docs", help="comma-separated document names instead"),
    golden: str = typer.Option(None, "--fingerprint", help="fingerprint file to compare with"),
    update: bool = typer.Option(False, "--update", help="rewrite the fingerprint (after review)"),
) -> None:
    """Extract PDFs afresh and compare with the committed extraction fingerprint."""
    from .core.params import load_params
    from .ingestion.corpus import locate_corpus
    from .ingestion.fingerprint import format_report
    from .ingestion.parser_check import CI_SUBSET, GOLDEN, check_parser

    configured = None
    if Path("params.yaml").exists():
        configured = (load_params().get("corpus") or {}).get("dir") or None
    corpus_dir = locate_corpus(configured)
    names = docs.split(",") if docs else (CI_SUBSET if subset == "ci" else None)
    report = check_parser(corpus_dir, Path(golden) if golden else GOLDEN, names, update=update)
    if update:
        typer.echo(f"wrote {report['updated']} ({report['n_docs']} documents)")
        return
    typer.echo(format_report(report))
    if report["regression"]:
        raise typer.Exit(1)


@app.command("check-scores")
def check_scores_cmd(
    metrics: str = typer.Option("reports/metrics.json", "--metrics", help="metrics file"),
    expected: str = typer.Option("tests/golden/expected_scores.yaml", "--expected"),
    update: bool = typer.Option(False, "--update",
                                help="rewrite the expected scores from the metrics file"),
    tolerance: float = typer.Option(0.01, "--tolerance", help="with --update"),
) -> None:
    """Compare a run's DocRec@5/PageRec@5 with the committed expected scores."""
    import json

    import yaml

    from .evaluation.score_check import check_scores, expected_from_metrics, load_expected

    m = json.loads(Path(metrics).read_text())
    if update:
        methods = [k for k, v in m.items() if isinstance(v, dict) and "standard" in v]
        Path(expected).write_text(
            "# Expected scores of the full default `dvc repro` (fingap check-scores).\n"
            + yaml.safe_dump(expected_from_metrics(m, methods, tolerance), sort_keys=True))
        typer.echo(f"wrote {expected} ({len(methods)} methods)")
        return
    problems = check_scores(m, load_expected(Path(expected)))
    for line in problems:
        typer.echo(f"  MOVED  {line}")
    if problems:
        typer.echo(f"REGRESSION: {len(problems)} scores outside tolerance")
        raise typer.Exit(1)
    typer.echo("OK: every expected score within tolerance")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
