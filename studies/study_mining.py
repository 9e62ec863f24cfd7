"""Could ``sentence_transformers.util.mine_hard_negatives`` replace fingap's own mining?
(reports/benchmarks.json, section "mining_study")

fingap mines, per question, non-gold pages of the question's *own* document ranked high by the
fold's scorer, and skips a page holding >= ``false_negative_recall`` of a gold evidence
snippet's tokens (an unlabelled positive: FinanceBench labels one page per snippet, while the
figure is often printed on several). ``mine_hard_negatives`` ranks one corpus for every anchor
and filters false negatives by score only. This measures, on fold 0's training questions (its
first 20 documents), what it returns with those documents' pages as its corpus (top-10 per
question; the base model ranks, since the study must not need the trained models):
- the share of its negatives from another document than the question's;
- the share that fingap's evidence rule flags as likely unlabelled positives;
- the same with its score filter on (``relative_margin`` 0.05) and a per-document corpus
  (one call per document, which is how it would be made to stay within the document).

    python studies/study_mining.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from datasets import Dataset

from fingap.core.io import update_json_section
from fingap.core.params import load_params
from fingap.core.precision import autocast
from fingap.ingestion.corpus import read_questions
from fingap.ingestion.extract import read_page_texts
from fingap.retrieval.page_ranking import load_bi_encoder, page_text
from fingap.training.folds import assign_folds, fold_training_sets
from fingap.training.hard_negatives import evidence_recall

ROOT = Path(__file__).resolve().parents[1]
N_DOCS = 20


def _measure(mined_rows: list[tuple[object, str]], page_of_text: dict, threshold: float) -> dict:
    """``mined_rows``: (question, negative text) pairs."""
    other_doc = likely_positive = 0
    for q, text in mined_rows:
        doc, _ = page_of_text[text]
        other_doc += doc != q.doc
        likely_positive += any(evidence_recall(e.text, text) >= threshold
                               for e in q.evidence if e.text.strip())
    n = max(1, len(mined_rows))
    return {"negatives": len(mined_rows), "from_another_document": round(other_doc / n, 4),
            "likely_unlabelled_positive": round(likely_positive / n, 4)}


def main() -> None:
    from sentence_transformers.util import mine_hard_negatives

    params = load_params(ROOT / "params.yaml")
    hn, train = params["page_scorer_hn"], params["page_scorer_train"]
    threshold, top, max_chars = hn["false_negative_recall"], hn["mine_top"], train["max_chars"]
    pages = read_page_texts(ROOT / "data/pages/pages.jsonl")
    questions = read_questions(ROOT / "data/corpus")
    # the folds stage's own function and params: data/folds.json without needing the stage
    folds = assign_folds(questions, params["folds"]["n_folds"], params["folds"]["seed"])
    fold, train_q = next(fold_training_sets(folds, questions))
    # the first N_DOCS training documents of fold 0 and their questions: enough to measure, and
    # two encodings of their pages stay within minutes on two cores
    docs = sorted({q.doc for q in train_q})[:N_DOCS]
    train_q = [q for q in train_q if q.doc in docs]
    keys = sorted(k for k in pages if k[0] in docs)
    text_of = {k: page_text(pages[k], max_chars) for k in keys}
    page_of_text = {t: k for k, t in text_of.items()}
    rows = [(q, text_of[g]) for q in train_q for g in q.gold_pages if g in text_of]
    model = load_bi_encoder(train["model"], train["max_seq_length"])
    data = Dataset.from_dict({"anchor": [q.question for q, _ in rows],
                              "positive": [p for _, p in rows]})
    out = {"fold": fold["fold"], "n_questions": len(train_q), "n_pairs": len(rows),
           "n_corpus_pages": len(keys), "top": top, "evidence_threshold": threshold}

    def run(corpus: list[str], subset: list[int], **kw) -> list:
        with autocast(train["precision"]), tempfile.TemporaryDirectory() as cache:
            ds = mine_hard_negatives(data.select(subset), model, corpus=corpus,
                                     num_negatives=top, sampling_strategy="top",
                                     output_format="n-tuple", batch_size=64, verbose=False,
                                     cache_folder=str(ROOT / "data/cache/mining") if
                                     len(corpus) == len(keys) else cache, **kw)
        mined = []
        for r, i in zip(ds, subset, strict=False):
            mined += [(rows[i][0], r[c]) for c in ds.column_names if c.startswith("negative")]
        return mined

    corpus = [text_of[k] for k in keys]
    out["whole_corpus"] = _measure(run(corpus, list(range(len(rows)))), page_of_text,
                                   threshold)
    out["whole_corpus_relative_margin_0.05"] = _measure(
        run(corpus, list(range(len(rows))), relative_margin=0.05), page_of_text,
        threshold)
    per_doc = []
    for d in docs:
        idx = [i for i, (q, _) in enumerate(rows) if q.doc == d]
        if idx:
            per_doc += run([text_of[k] for k in keys if k[0] == d], idx)
    out["per_document_corpus"] = _measure(per_doc, page_of_text, threshold)
    update_json_section(ROOT / "reports/benchmarks.json", "mining_study", out)
    print(out)


if __name__ == "__main__":
    main()
