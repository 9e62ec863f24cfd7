"""Scoring runs: per-question records and the aggregates of reports/metrics.json."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from ..core.runs import Run
from ..ingestion.corpus import STATUS_EVALUATED, STATUS_NO_GOLD, Question
from .metrics import doc_recall, max_text_scores, mean, page_recall

METRIC_NAMES = ("DocRec", "PageRec", "BLEU", "ROUGE-L")


class ChunkLookup:
    """chunk_id -> (doc, page, text)."""

    def __init__(self, ids: Sequence[str], docs: Sequence[str], pages: Sequence[int],
                 texts: Sequence[str]):
        self._rows = {c: (d, p, t) for c, d, p, t in zip(ids, docs, pages, texts, strict=True)}

    @classmethod
    def of_chunks(cls, chunks: Sequence[dict]) -> ChunkLookup:
        """From the chunk stage's records (chunk_id, doc, page, text)."""
        return cls([c["chunk_id"] for c in chunks], [c["doc"] for c in chunks],
                   [c["page"] for c in chunks], [c["text"] for c in chunks])

    def __getitem__(self, chunk_id: str) -> tuple[str, int, str]:
        try:
            return self._rows[chunk_id]
        except KeyError:
            raise KeyError(
                f"run refers to chunk {chunk_id!r}, which is not in the current chunk table "
                "(a stale run from another chunking?)"
            ) from None


def score_question(q: Question, hits: Sequence[tuple[str, float]], chunks: ChunkLookup,
                   k: int, text: bool = True) -> dict:
    """One question's record; ``text=False`` leaves out BLEU and ROUGE-L (nearly all of the
    cost) for callers that read only the recalls."""
    top = list(hits)[:k]
    rows = [chunks[c] for c, _ in top]
    record = {
        "question_id": q.id,
        "question_type": q.question_type,
        "doc_type": q.doc_type,
        "doc": q.doc,
        "gold_pages": [list(p) for p in q.gold_pages],
        "retrieved": [[c, d, p, round(s, 6)] for (c, s), (d, p, _) in zip(top, rows, strict=True)],
        "DocRec": doc_recall(q.gold_docs, [d for d, _, _ in rows]),
        "PageRec": page_recall(q.gold_pages, [(d, p) for d, p, _ in rows]),
    }
    if text:
        record.update(max_text_scores(q.evidence_text, [t for _, _, t in rows]))
    return record


def score_run(questions: Sequence[Question], run: Run, chunks: ChunkLookup, k: int,
              text: bool = True) -> list[dict]:
    """Per-question records for every evaluated question (missing ones score 0: no hits)."""
    return [score_question(q, run.get(q.id, []), chunks, k, text=text)
            for q in questions if q.status == STATUS_EVALUATED]


def unscored_records(questions: Sequence[Question], run: Run, chunks: ChunkLookup, k: int
                     ) -> list[dict]:
    """What the run retrieved for each question without gold evidence (``scored: false``, no
    metric): the answer stage answers from it, nothing averages it."""
    out = []
    for q in questions:
        if q.status != STATUS_NO_GOLD:
            continue
        top = list(run.get(q.id, []))[:k]
        out.append({"question_id": q.id, "question_type": q.question_type,
                    "doc_type": q.doc_type, "doc": q.doc, "scored": False,
                    "retrieved": [[c, *chunks[c][:2], round(s, 6)] for c, s in top]})
    return out


def aggregate(records: Sequence[dict], k: int) -> dict[str, float]:
    out = {f"{m}@{k}": mean(r[m] for r in records) for m in METRIC_NAMES}
    out["n"] = len(records)
    return out


def breakdown(records: Sequence[dict], key: str, k: int) -> dict[str, dict[str, float]]:
    groups: Mapping[str, list[dict]] = defaultdict(list)
    for r in records:
        groups[r[key]].append(r)
    return {g: aggregate(rs, k) for g, rs in sorted(groups.items())}


METRICS_GENERATED = "metrics-generated"  # FinanceBench's question type for computed metrics


def add_answer_scores(records: Sequence[dict], answers: Mapping[str, dict],
                      questions: Sequence[Question]) -> None:
    """Add the generated answer and its scores to each per-question record (in place)."""
    from .answer_metrics import answer_scores, extract_numbers

    gold = {q.id: q.answer for q in questions}
    for r in records:
        a = answers.get(r["question_id"])
        if a is None:
            raise KeyError(f"no generated answer for question {r['question_id']}")
        scores = answer_scores(gold[r["question_id"]], a["answer"])
        r.update({"answer": a["answer"], "answer_error": a.get("error"),
                  "AnsROUGE-L": scores["answer_rouge_l"], "NumMatch": scores["numeric_match"],
                  "gold_numeric": bool(extract_numbers(gold[r["question_id"]]))})


def aggregate_answers(records: Sequence[dict]) -> dict[str, float | int | None]:
    """Answer ROUGE-L over all questions; numeric match over metrics-generated questions (the
    paper's column) and over every question whose gold answer has a number."""
    mg = [r for r in records if r["question_type"] == METRICS_GENERATED]
    numeric = [r for r in records if r["gold_numeric"]]
    return {
        "AnsROUGE-L": mean(r["AnsROUGE-L"] for r in records),
        "NumMatch": mean(r["NumMatch"] for r in mg) if mg else None,
        "n_metrics_generated": len(mg),
        "NumMatch_numeric": mean(r["NumMatch"] for r in numeric) if numeric else None,
        "n_numeric": len(numeric),
        "gen_failed": sum(1 for r in records if r.get("answer_error")),
    }
