"""What fingap knows of each filing: company, form and fiscal period end.

Three sources, first match wins for each document:
- FinanceBench's document information file (``financebench_documents``);
- a user's own metadata file, CSV or JSONL, whose columns map to fingap's fields through
  ``corpus.metadata_fields`` (``read_metadata``);
- the filing's cover page (``cover_document``): the form ("FORM 10-K"), the period ("for the
  fiscal year ended December 31, 2022") and the registrant ("(Exact name of registrant as
  specified in its charter)") that every 10-K, 10-Q and 8-K cover prints.

A form is one of fingap's labels (10K, 10Q, 8K, EARNINGS) or another SEC form written without
its hyphen (20F); a period end is an ISO date, or a year where only the year is known.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path

from ..core.io import JsonlError, iter_jsonl

# fingap's fields and the column each maps to by default (FinanceBench's own names)
FIELDS = ("doc", "company", "form", "period_end")
DEFAULT_FIELDS = {"doc": "doc_name", "company": "company", "form": "doc_type",
                  "period_end": "doc_period"}
REQUIRED_FIELDS = ("doc",)

# FinanceBench doc_type values and common spellings -> fingap's form labels (annual reports
# count as 10K, as in the paper's Table 2)
_FORM_ALIASES = {"10k": "10K", "10k_annualreport": "10K", "10ka": "10K", "annualreport": "10K",
                 "10q": "10Q", "10qa": "10Q", "8k": "8K", "8ka": "8K", "earnings": "EARNINGS",
                 "earningscall": "EARNINGS", "earningsrelease": "EARNINGS",
                 "transcript": "EARNINGS"}
_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december"
    .split(), 1)}
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" \
         r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_WRITTEN_DATE = re.compile(_MONTH + r"\.?\s+(\d{1,2}),?\s+((?:19|20)\d\d)", re.I)
_COVER_FORM = re.compile(r"\bform\s+(10-?k|10-?q|8-?k|20-?f|40-?f|6-?k)\b", re.I)
_COVER_PERIOD = re.compile(
    r"for\s+the\s+(?:fiscal\s+year|quarterly\s+period|(?:transition\s+)?period)\s+ended\s+"
    r"|date\s+of\s+report\s*\(date\s+of\s+earliest\s+event\s+reported\)\s*:?\s*", re.I)
_REGISTRANT_LABEL = re.compile(r"exact name of registrant", re.I)


# legal-form words that a question rarely repeats ("3M Company" is asked about as "3M")
LEGAL_SUFFIXES = frozenset("""inc incorporated corp corporation co company companies ltd limited
    plc llc lp sa nv ag holdings holding group the""".split())


def company_name_keys(name: str) -> set[str]:
    """A company's name as letters and digits, whole and without its legal form: "ACME
    Corporation" -> {"acmecorporation", "acme"} (how the answer path spots it in a question)."""
    words = re.findall(r"[a-z0-9&]+", name.lower())
    core = [w for w in words if w not in LEGAL_SUFFIXES]
    out = {"".join(ch for ch in "".join(ws) if ch.isalnum()) for ws in (words, core)}
    return {k for k in out if len(k) >= 2}


class MetadataError(JsonlError):
    """A metadata file that cannot be read as fingap's document fields."""


@dataclass(frozen=True)
class DocumentRecord:
    doc: str
    company: str = ""
    form: str = ""
    period_end: str = ""       # "2022-12-31", "2022" or "" (unknown)
    source: str = "metadata"   # metadata | cover

    @property
    def year(self) -> int | None:
        return int(self.period_end[:4]) if self.period_end[:4].isdigit() else None

    def to_dict(self) -> dict:
        return asdict(self)


def normalise_form(raw: object) -> str:
    """``10-K``, ``10k``, ``10k_annualreport`` -> ``10K``; another form loses its hyphens."""
    key = re.sub(r"[\s\-/]", "", str(raw or "")).lower()
    return _FORM_ALIASES.get(key, key.upper())


def normalise_period(raw: object) -> str:
    """An ISO date from ``2022-12-31``, ``12/31/2022`` or ``December 31, 2022``; a bare year as
    itself; "" for nothing. Raises ValueError for anything else."""
    text = str(raw if raw is not None else "").strip()
    if not text:
        return ""
    if re.fullmatch(r"(?:19|20)\d\d", text):
        return text
    m = re.fullmatch(r"((?:19|20)\d\d)-(\d{1,2})-(\d{1,2})(?:[T ].*)?", text)
    if m:
        y, mo, d = map(int, m.groups())
        return date(y, mo, d).isoformat()
    m = re.fullmatch(r"(\d{1,2})/(\d{1,2})/((?:19|20)\d\d)", text)
    if m:
        mo, d, y = map(int, m.groups())
        return date(y, mo, d).isoformat()
    m = _WRITTEN_DATE.fullmatch(text)
    if m:
        return _written_date(m)
    raise ValueError(f"not a date or a year: {text!r}")


def _written_date(m: re.Match) -> str:
    month = next(i for name, i in _MONTHS.items() if name.startswith(m.group(1).lower()[:3]))
    return date(int(m.group(3)), month, int(m.group(2))).isoformat()


def doc_name(raw: object) -> str:
    """A document's name: its file name without the folder and ``.pdf``."""
    name = Path(str(raw or "").strip()).name
    return name[:-4] if name.lower().endswith(".pdf") else name


def check_fields(fields: Mapping[str, str] | None) -> dict[str, str]:
    """``corpus.metadata_fields`` over the defaults; unknown fields are an error."""
    out = dict(DEFAULT_FIELDS)
    for key, column in (fields or {}).items():
        if key not in FIELDS:
            raise MetadataError(f"corpus.metadata_fields.{key}: unknown field; fingap's fields "
                                f"are {', '.join(FIELDS)}")
        if not isinstance(column, str) or not column:
            raise MetadataError(f"corpus.metadata_fields.{key} must name a column")
        out[key] = column
    return out


def _rows(path: Path) -> list[tuple[int, dict]]:
    if path.suffix.lower() == ".csv":
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            return [(i, row) for i, row in enumerate(reader, 2)]  # line 1 is the header
    if path.suffix.lower() in (".jsonl", ".json"):
        return list(iter_jsonl(path))
    raise MetadataError(f"{path}: a metadata file is .csv or .jsonl")


def read_metadata(path: str | Path, fields: Mapping[str, str] | None = None,
                  repeats: str = "error") -> dict[str, DocumentRecord]:
    """One record per document of a CSV or JSONL file; errors name the file, line and column.
    A field whose column the file lacks stays empty (the cover page may give it), except the
    document's name, which every row needs. A document listed again with other fields is an
    error, or with ``repeats="last"`` its last row counts (FinanceBench lists
    FOOTLOCKER_2023_annualreport with two fiscal periods; fingap has always read the last)."""
    path = Path(path)
    columns = check_fields(fields)
    out: dict[str, DocumentRecord] = {}
    first_line: dict[str, int] = {}
    for line, row in _rows(path):
        where = f"{path}:{line}"
        for key in REQUIRED_FIELDS:
            if not str(row.get(columns[key]) or "").strip():
                raise MetadataError(f"{where}: no value in column {columns[key]!r} "
                                    f"(corpus.metadata_fields.{key})")
        doc = doc_name(row[columns["doc"]])
        try:
            period = normalise_period(row.get(columns["period_end"]))
        except ValueError as e:
            raise MetadataError(f"{where}: column {columns['period_end']!r} "
                                f"(corpus.metadata_fields.period_end): {e}") from None
        record = DocumentRecord(doc=doc, company=str(row.get(columns["company"]) or "").strip(),
                                form=normalise_form(row.get(columns["form"])),
                                period_end=period)
        if out.get(doc, record) != record and repeats != "last":  # an identical one is harmless
            raise MetadataError(f"{where}: document {doc} listed again with other fields "
                                f"(first on line {first_line[doc]})")
        out[doc] = record
        first_line.setdefault(doc, line)
    return out


def registrant_line(text: str) -> str | None:
    """The line above "(Exact name of registrant as specified in its charter)" that reads as a
    name: letters, no digits, not the form's own labels."""
    m = _REGISTRANT_LABEL.search(text)
    if not m:
        return None
    for line in reversed(text[: m.start()].splitlines()[-4:]):
        name = line.strip().strip("(").strip()
        if (name and not any(ch.isdigit() for ch in name) and any(ch.isalpha() for ch in name)
                and "commission" not in name.lower() and "period" not in name.lower()):
            return name
    return None


def cover_document(doc: str, cover_text: str) -> DocumentRecord:
    """The fields a filing's first pages print: form, period end, registrant (each "" when
    the cover does not print it, as an earnings release's does not)."""
    form = _COVER_FORM.search(cover_text)
    period = ""
    for m in _COVER_PERIOD.finditer(cover_text):
        d = _WRITTEN_DATE.match(" ".join(cover_text[m.end():m.end() + 40].split()))
        if d:
            period = _written_date(d)
            break
    name = registrant_line(cover_text) or ""
    return DocumentRecord(doc=doc, company=" ".join(name.split()),
                          form=normalise_form(form.group(1)) if form else "",
                          period_end=period, source="cover")


def merge(meta: DocumentRecord | None, cover: DocumentRecord) -> DocumentRecord:
    """The metadata's fields, each empty one filled from the cover page."""
    if meta is None:
        return cover
    filled = {k: getattr(meta, k) or getattr(cover, k) for k in ("company", "form", "period_end")}
    source = "metadata" if all(getattr(meta, k) for k in filled) else "metadata+cover"
    return DocumentRecord(doc=meta.doc, source=source, **filled)
