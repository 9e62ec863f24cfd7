"""The numeric fact store: statement-table facts in SQLite, indexed for lookups by line item.

One row per (doc, page, table, row, column) fact. ``fiscal_year`` is the header year shifted
by the document's fiscal-year offset (``fingap.ingestion.statement_tables.fiscal_year_offset``);
``concept`` is the finance vocabulary's concept of the row label (NULL when none matches)
and ``concept_rank`` how preferred its label pattern is (0 = first). Values are stored as
printed, with their scale.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from ..core.io import atomic_path
from .labels import Vocabulary, normalise_label

COLUMNS = ("doc", "page", "tbl", "statement", "section", "label", "label_norm", "concept",
           "concept_rank", "year", "fiscal_year", "duration", "period_end", "end_date", "col",
           "n_cols", "value", "printed", "percent", "scale")
_SCHEMA = f"""
CREATE TABLE facts (id INTEGER PRIMARY KEY, {', '.join(COLUMNS)});
CREATE INDEX facts_doc_label_period ON facts (doc, label_norm, fiscal_year);
CREATE INDEX facts_doc_concept_period ON facts (doc, concept, fiscal_year);
CREATE INDEX facts_doc_page ON facts (doc, page);
CREATE TABLE documents (doc TEXT PRIMARY KEY, company TEXT);
"""
def fact_concept(fact: Mapping, vocab: Vocabulary) -> tuple[str, int] | None:
    """(concept, pattern rank) the vocabulary reads a fact's row label as, or None. A row the
    table reader read as an amount (it took the table's money scale) is no per-share line
    item: "Diluted" under "Weighted-average shares outstanding" is a count of shares, not
    diluted EPS. A loss-headed row of a primary statement ("Net loss", "Operating loss") is
    its income line where it prints the loss as a negative amount; printed as a positive
    amount it would give the income line the wrong sign, so it stays unread."""
    hit = vocab.concept_of(fact["label"])
    if hit is None and fact["statement"] in ("income", "cash_flow") and fact["value"] <= 0:
        hit = vocab.loss_concept_of(fact["label"])
    if hit and fact["scale"] and vocab.is_per_share(hit[0]):
        return None
    return hit


def write_store(path: Path, facts: Iterable[dict], vocab: Vocabulary,
                companies: Mapping[str, str] | None = None) -> int:
    """Write ``facts`` (dicts with ``Fact`` fields plus ``fiscal_year``) atomically, and
    ``companies``, each document's company as the corpus names it (documents.jsonl), which the
    answer path recognises in a question beside the one the document's name spells."""
    n = 0
    with atomic_path(path) as tmp:
        tmp.unlink(missing_ok=True)
        con = sqlite3.connect(tmp)
        con.executescript(_SCHEMA)
        rows = []
        for f in facts:
            hit = fact_concept(f, vocab)
            rows.append((f["doc"], f["page"], f["table"], f["statement"], f["section"],
                         f["label"], normalise_label(f["label"]), hit[0] if hit else None,
                         hit[1] if hit else None, f["year"], f["fiscal_year"], f["duration"],
                         f["period_end"], f["end_date"], f["column"], f["n_columns"],
                         f["value"], f["printed"], int(f["percent"]), f["scale"]))
            n += 1
        con.executemany(f"INSERT INTO facts ({', '.join(COLUMNS)}) VALUES "
                        f"({', '.join('?' * len(COLUMNS))})", rows)
        con.executemany("INSERT INTO documents VALUES (?, ?)",
                        sorted((d, c) for d, c in (companies or {}).items() if c))
        con.commit()
        con.close()
    return n


class FactStore:
    """Read-only queries over a fact store file."""

    def __init__(self, path: str | Path):
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"fact store {path} not found; run `dvc repro tables`")
        self.con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.con.row_factory = sqlite3.Row

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> FactStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def query(self, doc: str | None = None, concept: str | None = None,
              label: str | None = None, fiscal_year: int | None = None,
              pages: Iterable[tuple[str, int]] | None = None,
              year: int | None = None, label_words: list[str] | None = None) -> list[dict]:
        """Facts matching every given filter, in (doc, page, table, row) order. ``year`` is
        the header's calendar year, ``fiscal_year`` the document's fiscal year."""
        where, args = [], []
        for column, value in (("doc", doc), ("concept", concept), ("fiscal_year", fiscal_year),
                              ("year", year)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        if label is not None:
            where.append("label_norm LIKE ?")
            args.append(f"%{normalise_label(label)}%")
        if label_words:
            # the words in order, anything between: "cost services" finds "cost of services"
            where.append("(' ' || label_norm || ' ') LIKE ?")
            args.append("% " + "% ".join(label_words) + " %")
        if pages is not None:
            pages = list(pages)
            if not pages:
                return []
            where.append("(" + " OR ".join("(doc = ? AND page = ?)" for _ in pages) + ")")
            for d, p in pages:
                args.extend([d, p])
        sql = "SELECT * FROM facts" + (" WHERE " + " AND ".join(where) if where else "") + \
            " ORDER BY id"
        return [dict(r) for r in self.con.execute(sql, args)]

    def docs(self) -> list[str]:
        """The documents that have facts, sorted."""
        return [r[0] for r in self.con.execute("SELECT DISTINCT doc FROM facts ORDER BY doc")]

    def companies(self) -> dict[str, str]:
        """Each document's company as the corpus names it ({} for a store written before)."""
        try:
            return dict(self.con.execute("SELECT doc, company FROM documents ORDER BY doc"))
        except sqlite3.OperationalError:
            return {}

    def labels(self) -> list[str]:
        """Every distinct normalised row label in the store, sorted."""
        return [r[0] for r in self.con.execute(
            "SELECT DISTINCT label_norm FROM facts WHERE label_norm IS NOT NULL ORDER BY 1")]

    def iter_all(self) -> Iterator[dict]:
        for r in self.con.execute("SELECT * FROM facts ORDER BY id"):
            yield dict(r)
