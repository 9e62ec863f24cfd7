"""Document routing without an LLM: rank the filings before ranking their pages.

HiREC's first stage matches a question against per-document cover summaries. Here a cover
record is built deterministically from a filing's first pages and the corpus metadata: company,
aliases, form type, fiscal period, filing date and a short extractive summary. A question is
parsed for the same facets, and documents are ranked by a fusion of the metadata match with
BM25 over the cover records.

Aliases come only from the documents and the metadata: the metadata's company name with and
without corporate suffixes, the document name's company prefix (``AMERICANWATERWORKS``), and
the ticker and registrant name that a 10-K/10-Q cover page prints. No list of companies is
written by hand, so a new filing routes by the same rules.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from ..core.params import ParamError
from ..core.runs import Run
from ..ingestion.documents import LEGAL_SUFFIXES, registrant_line

FORMS = {"10k": "10-K", "10k_annualreport": "10-K", "10q": "10-Q", "8k": "8-K",
         "earnings": "earnings"}
_WORD = re.compile(r"[a-z0-9&]+")
_YEAR = re.compile(r"(?<![\d$.,])(?:fy|fiscal(?: year)?\s*)?\s*((?:19|20)\d\d)(?![\d%])", re.I)
_SHORT_FY = re.compile(r"\bfy\s?'?(\d\d)\b", re.I)
# Q2, Q2 2023, Q22023, 2Q23, "second (fiscal) quarter"
_QUARTER = re.compile(r"\b(?:q([1-4])\s*(?:fy)?'?((?:19|20)\d\d)?|([1-4])q(?:\d\d)?"
                      r"|(first|second|third|fourth)(?: fiscal)? quarter)\b", re.I)
_DATE = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? (\d{1,2}),? "
                   r"((?:19|20)\d\d)\b", re.I)
_MONTHS = ("jan feb mar apr may jun jul aug sep oct nov dec").split()
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_FORM_HINTS = (
    ("10-K", re.compile(r"\b10-?k\b|\bannual report\b", re.I)),
    ("10-Q", re.compile(r"\b10-?q\b|\bquarterly report\b", re.I)),
    ("8-K", re.compile(r"\b8-?k\b", re.I)),
    ("earnings", re.compile(r"\bearnings (?:call|release|report|transcript)\b", re.I)),
)
_TICKER_LABEL = re.compile(r"trading\s+symbol", re.I)
_TICKER = re.compile(r"[A-Z]{1,5}")
_DATED = re.compile(r"dated[-_](\d{4}-\d{2}-\d{2})")
_DOC_QUARTER = re.compile(r"_(\d{4})Q([1-4])_")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _phrase(text: str) -> str:
    return " ".join(words(text))


@dataclass(frozen=True)
class CoverRecord:
    doc: str
    company: str
    form: str
    year: int | None
    quarter: int | None = None
    filed: str | None = None
    ticker: str | None = None
    registrant: str | None = None
    aliases: tuple[str, ...] = ()
    summary: str = ""

    def text(self) -> str:
        """The record as one text, for lexical (BM25) matching."""
        period = f"{self.year or ''} Q{self.quarter}" if self.quarter else f"{self.year or ''}"
        return " ".join(x for x in (self.company, self.registrant or "", self.ticker or "",
                                    self.form, f"fiscal {period}", self.filed or "",
                                    self.summary) if x)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["aliases"] = list(self.aliases)
        return d


def _strip_suffixes(name: str) -> str:
    kept = [w for w in words(name) if w not in LEGAL_SUFFIXES]
    return " ".join(kept)


def extractive_summary(pages: Sequence[str], max_chars: int = 600) -> str:
    """The first lines of the first pages that read as prose (at least 5 words)."""
    out: list[str] = []
    size = 0
    for page in pages:
        for line in page.splitlines():
            line = " ".join(line.split())
            if len(line.split()) >= 5 and size < max_chars:
                out.append(line)
                size += len(line) + 1
    return " ".join(out)[:max_chars]


def cover_ticker(text: str) -> str | None:
    """The first stand-alone upper-case symbol under a cover page's "Trading Symbol" header
    (the common stock's row comes first)."""
    m = _TICKER_LABEL.search(text)
    if not m:
        return None
    for line in text[m.end():].splitlines()[1:16]:
        if _TICKER.fullmatch(line.strip()):
            return line.strip()
    return None


def cover_registrant(text: str) -> str | None:
    """The registrant's name a cover page prints, as a phrase (``registrant_line``)."""
    name = registrant_line(text)
    return _phrase(name) if name else None


def acronyms(name: str) -> set[str]:
    """Initials of a company name written as an acronym: "X & Y" gives "x&y" and "xny" (JnJ);
    a name of three or more words gives its initials. Two-word initials are too ambiguous."""
    ws = _strip_suffixes(name).split()
    out = set()
    if len(ws) == 3 and ws[1] == "&":
        out |= {f"{ws[0][0]}&{ws[2][0]}", f"{ws[0][0]}n{ws[2][0]}"}
    elif len(ws) >= 3 and "&" not in ws:
        out.add("".join(w[0] for w in ws))
    return out


def build_cover(doc: str, meta: Mapping, first_pages: Sequence[str]) -> CoverRecord:
    """A cover record from the corpus metadata of ``doc`` and its first pages' text."""
    company = str(meta.get("company") or doc.split("_")[0])
    form = FORMS.get(str(meta.get("doc_type", "")).lower(), str(meta.get("doc_type", "")))
    year = int(meta["doc_period"]) if str(meta.get("doc_period", "")).isdigit() else None
    q = _DOC_QUARTER.search(doc)
    dated = _DATED.search(doc)
    head = "\n".join(first_pages)
    tick = cover_ticker(head)
    reg = cover_registrant(head)
    aliases = {_phrase(company), _strip_suffixes(company), doc.split("_")[0].lower()}
    aliases |= acronyms(company)
    if reg:
        aliases |= {reg, _strip_suffixes(reg)}
    return CoverRecord(
        doc=doc, company=company, form=form, year=year,
        quarter=int(q.group(2)) if q else None,
        filed=dated.group(1) if dated else None,
        ticker=tick, registrant=reg,
        aliases=tuple(sorted(a for a in aliases if a)),
        summary=extractive_summary(first_pages),
    )


def share_company_facts(covers: Sequence[CoverRecord]) -> list[CoverRecord]:
    """Aliases and the ticker belong to the company, not to one filing. An earnings release or
    an 8-K has no 10-K cover page to read them from, so without this a question that names the
    company by its ticker or registrant name matches the company's 10-K fully and its earnings
    release only in part. Each record gets the union of its company's aliases and, when its
    own pages print none, the ticker its company's covers print most often."""
    by_company: dict[str, list[CoverRecord]] = defaultdict(list)
    for c in covers:
        by_company[c.company].append(c)
    out = []
    for c in covers:
        group = by_company[c.company]
        tickers = Counter(g.ticker for g in group if g.ticker)
        ticker = c.ticker or (min(tickers, key=lambda t: (-tickers[t], t)) if tickers else None)
        aliases = tuple(sorted({a for g in group for a in g.aliases}))
        out.append(replace(c, aliases=aliases, ticker=ticker))
    return out


@dataclass
class QuestionFacets:
    years: list[int] = field(default_factory=list)
    quarters: list[int] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)  # ISO dates the question names


def parse_question(text: str) -> QuestionFacets:
    """Fiscal years, quarters and form types a question names."""
    years = {int(m.group(1)) for m in _YEAR.finditer(text)}
    years |= {2000 + int(m.group(1)) for m in _SHORT_FY.finditer(text)}
    quarters = set()
    for m in _QUARTER.finditer(text):
        q = m.group(1) or m.group(3)
        quarters.add(int(q) if q else _ORDINAL[m.group(4).lower()])
        if m.group(2):
            years.add(int(m.group(2)))
    forms = [name for name, rx in _FORM_HINTS if rx.search(text)]
    dates = sorted({f"{m.group(3)}-{_MONTHS.index(m.group(1).lower()[:3]) + 1:02d}-"
                    f"{int(m.group(2)):02d}" for m in _DATE.finditer(text)})
    return QuestionFacets(sorted(years), sorted(quarters), forms, dates)


def company_match(question: str, cover: CoverRecord) -> float:
    """1 when an alias occurs in the question as whole words (or, for one-word aliases such as
    the document-name prefix, in the question with spaces removed), or the ticker occurs as an
    upper-case word; otherwise the largest share of an alias's words the question contains."""
    q = " " + _phrase(question) + " "
    joined = q.replace(" ", "")
    if cover.ticker and re.search(rf"\b{re.escape(cover.ticker)}\b", question):
        return 1.0
    best = 0.0
    for alias in cover.aliases:
        if f" {alias} " in q or (" " not in alias and len(alias) >= 4 and alias in joined):
            return 1.0
        toks = alias.split()
        if toks:
            best = max(best, sum(f" {t} " in q for t in toks) / len(toks) * 0.5)
    return best


def period_match(facets: QuestionFacets, cover: CoverRecord) -> float:
    """1 for the latest year the question names (a change from FY2017 to FY2019 is read from
    the 2019 filing); 0.5 for another named year, or for an annual report of one or two years
    later (a 10-K reports its two prior years as comparatives); 0.25 when no year is named."""
    if not facets.years or cover.year is None:
        return 0.25
    latest = max(facets.years)
    if cover.year == latest:
        return 1.0
    if cover.year in facets.years or (cover.form == "10-K" and 0 < cover.year - latest <= 2):
        return 0.5
    return 0.0


def form_match(facets: QuestionFacets, cover: CoverRecord) -> float:
    if facets.forms:
        return 1.0 if cover.form in facets.forms else 0.0
    if facets.quarters:  # a quarter without a named form: a 10-Q or an earnings report
        return 0.5 if cover.form in ("10-Q", "earnings") else 0.0
    # neither: a fiscal-year question is first the annual report's
    return 0.5 if cover.form == "10-K" else 0.25


def date_match(facets: QuestionFacets, cover: CoverRecord) -> float:
    """1 when the question names the filing's own date (an 8-K "dated" that day)."""
    return 1.0 if cover.filed and cover.filed in facets.dates else 0.0


def quarter_match(facets: QuestionFacets, cover: CoverRecord) -> float:
    if not facets.quarters or cover.quarter is None:
        return 0.0
    return 1.0 if cover.quarter in facets.quarters else 0.0


@dataclass(frozen=True)
class RoutingWeights:
    company: float = 4.0
    period: float = 2.0
    form: float = 1.0
    quarter: float = 0.5
    date: float = 2.0
    bm25: float = 0.5

    @classmethod
    def from_params(cls, p: Mapping) -> RoutingWeights:
        w = cls(**{k: float(p[k]) for k in cls.__dataclass_fields__ if k in p})
        for k, v in asdict(w).items():
            if v < 0:
                raise ParamError(f"routing.weights.{k} must be >= 0, got {v}")
        return w


def metadata_scores(question: str, covers: Sequence[CoverRecord],
                    w: RoutingWeights) -> np.ndarray:
    f = parse_question(question)
    return np.array([w.company * company_match(question, c) + w.period * period_match(f, c)
                     + w.form * form_match(f, c) + w.quarter * quarter_match(f, c)
                     + w.date * date_match(f, c) for c in covers], dtype=np.float64)


def route(questions: Mapping[str, str], covers: Sequence[CoverRecord],
          weights: RoutingWeights = RoutingWeights()) -> dict[str, list[tuple[str, float]]]:
    """Every document ranked for every question: metadata match plus ``weights.bm25`` times
    BM25 over the cover records, min-max scaled per question (ties: document name)."""
    from .bm25 import BM25Retriever

    ids = [c.doc for c in covers]
    bm25 = BM25Retriever.from_texts(ids, [c.text() for c in covers], backend="bm25s")
    qids = sorted(questions)
    lexical = bm25.score([questions[q] for q in qids]) if qids else np.zeros((0, len(ids)))
    out = {}
    for row, qid in enumerate(qids):
        lex = lexical[row].astype(np.float64)
        span = lex.max() - lex.min()
        lex = (lex - lex.min()) / span if span > 0 else np.zeros_like(lex)
        score = metadata_scores(questions[qid], covers, weights) + weights.bm25 * lex
        order = sorted(range(len(ids)), key=lambda i: (-score[i], ids[i]))
        out[qid] = [(ids[i], round(float(score[i]), 6)) for i in order]
    return out


def routed_documents(ranking: Mapping[str, Sequence], qids: Sequence[str],
                     top_docs: int) -> dict[str, list[str]]:
    """The first ``top_docs`` documents of each question in a route_docs ranking
    (``{qid: [[doc, score], ...]}``)."""
    return {q: [doc for doc, _ in ranking[q][:top_docs]] for q in qids}


def hedge_documents(ranking: Mapping[str, Sequence], qids: Iterable[str], top_docs: int,
                    margin: float) -> dict[str, str]:
    """The next document after the first ``top_docs`` for each question whose router is unsure:
    the score of its last routed document is less than ``margin`` above the next one's
    (``margin`` 0: no question is hedged)."""
    out = {}
    for q in qids:
        ranked = ranking[q]
        if len(ranked) > top_docs and float(ranked[top_docs - 1][1]) - float(
                ranked[top_docs][1]) < margin:
            out[q] = ranked[top_docs][0]
    return out


def hedge_run(primary: Run, secondary: Run, hedged: Iterable[str], k: int) -> Run:
    """A run whose hedged questions give the last of their ``k`` slots to the best hit of
    ``secondary`` (the next routed document's run) that ``primary`` does not already hold;
    every other question keeps ``primary``. The hedge trades the k-th hit of the first document
    for the best hit of the second, so a wrong first document no longer costs every slot."""
    hedged = set(hedged)
    out: Run = {}
    for q, hits in primary.items():
        extra = [h for h in secondary.get(q, []) if h[0] not in {c for c, _ in hits[:k - 1]}]
        if q in hedged and extra and k >= 2:
            out[q] = list(hits[:k - 1]) + [extra[0]]
        else:
            out[q] = list(hits[:k])
    return out


def doc_recall_at(gold_docs: Sequence[str], ranked: Sequence[str], n: int) -> float:
    """1 when a gold document is among the first ``n`` ranked documents."""
    return float(bool(set(gold_docs) & set(ranked[:n])))
