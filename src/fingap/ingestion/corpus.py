"""Locating, validating and describing the FinanceBench corpus.

Two layouts (``corpus.layout``): ``financebench`` (its ``data/*.jsonl`` and ``pdfs/``), and
``folder``, a user's own filings: a folder of PDFs, an optional metadata file whose columns map to
fingap's document fields (``corpus.metadata_fields``, ``fingap.ingestion.documents``; a field it
lacks is read from the filing's cover page) and an optional questions file in FinanceBench's
format. Either way the stage writes the same normalised outputs: ``manifest.json``,
``questions.jsonl`` and ``documents.jsonl``.

Conventions (FinanceBench facts, see the corpus README):
- ``evidence_page_num`` is 0-based on PyMuPDF's page list; gold pages are a *set* of
  (doc, page) pairs (two questions list the same page twice).
- Questions whose PDF is absent are not dropped: they get status ``missing_doc`` and are
  counted in every table, but not scored.
- A question without gold evidence (a user's question: no ``evidence`` list, or an empty one;
  ``answer`` and ``question_type`` may be left out too) gets status ``no_gold``: every stage
  retrieves and answers it like the others, nothing scores it or trains on it (docs/corpus.md).
"""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..core.io import JsonlError, iter_jsonl, read_jsonl, sha256_file
from ..core.params import ParamError
from .documents import DocumentRecord, check_fields, cover_document, merge, read_metadata

log = logging.getLogger("fingap")

QUESTIONS_FILE = "data/financebench_open_source.jsonl"
DOCINFO_FILE = "data/financebench_document_information.jsonl"
PDF_DIR = "pdfs"
ENV_VAR = "FINANCEBENCH_DIR"
DEFAULT_DIR = "../shared/financebench"

# FinanceBench doc_type values -> the labels of the paper's Table 2 (annual reports count as 10K).
DOC_TYPES = {"10k": "10K", "10k_annualreport": "10K", "10q": "10Q", "8k": "8K",
             "earnings": "EARNINGS"}

LAYOUTS = ("financebench", "folder")
COVER_PAGES = 3  # first pages read for a filing's cover fields

STATUS_EVALUATED = "evaluated"
STATUS_MISSING_DOC = "missing_doc"
STATUS_NO_GOLD = "no_gold"
# the questions the retrieval and answer stages serve: scored ones and those without gold
SERVED = (STATUS_EVALUATED, STATUS_NO_GOLD)


class CorpusError(RuntimeError):
    """The corpus cannot be found or is malformed."""


@dataclass(frozen=True)
class CorpusLayout:
    """Where a corpus keeps its parts, relative to its folder (``corpus`` params)."""

    kind: str = "financebench"
    pdfs: str = PDF_DIR
    metadata: str = ""
    questions: str = ""
    metadata_fields: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_params(cls, params: dict | None) -> CorpusLayout:
        params = params or {}
        kind = params.get("layout") or "financebench"
        if kind not in LAYOUTS:
            raise ParamError(f"corpus.layout must be one of {', '.join(LAYOUTS)}, got {kind!r}")
        if kind == "financebench":
            return cls()
        fields = params.get("metadata_fields") or {}
        if not isinstance(fields, dict):
            raise ParamError("corpus.metadata_fields must map fingap fields to column names")
        try:
            check_fields(fields)
        except JsonlError as e:
            raise ParamError(str(e)) from None
        for key in ("pdfs", "metadata", "questions"):
            value = params.get(key) or ""
            if not isinstance(value, str) or Path(value).is_absolute() or ".." in Path(value).parts:
                raise ParamError(f"corpus.{key} must be a path inside corpus.dir, got {value!r}")
        return cls(kind=kind, pdfs=params.get("pdfs") or PDF_DIR,
                   metadata=params.get("metadata") or "", questions=params.get("questions") or "",
                   metadata_fields=tuple(sorted(fields.items())))

    @property
    def inputs(self) -> list[str]:
        """The files besides the PDFs that the stages read (hash-checked by the manifest)."""
        if self.kind == "financebench":
            return [QUESTIONS_FILE, DOCINFO_FILE]
        return [f for f in (self.questions, self.metadata) if f]


def locate_corpus(configured: str | None = None, root: str | Path = ".",
                  layout: CorpusLayout | None = None) -> Path:
    """Find FinanceBench: the param, then ``$FINANCEBENCH_DIR``, then ``../shared/financebench``.

    The default is also looked for beside every folder above ``root``: a queued or ``--temp``
    DVC experiment runs in a copy under ``.dvc/tmp/exps/``, where ``../shared/financebench``
    no longer points beside the repository. A ``folder`` corpus is where ``corpus.dir`` says."""
    if layout is not None and layout.kind == "folder":
        if not configured:
            raise CorpusError("corpus.layout: folder needs corpus.dir, the folder of the corpus")
        path = Path(configured)
        path = path if path.is_absolute() else (Path(root) / path).resolve()
        if not (path / layout.pdfs).is_dir():
            raise CorpusError(f"{path / layout.pdfs}: no such folder (corpus.dir / corpus.pdfs)")
        return path
    tried = []
    candidates = []
    if configured:
        candidates.append(("param corpus.dir", configured))
    elif os.environ.get(ENV_VAR):
        candidates.append((f"env {ENV_VAR}", os.environ[ENV_VAR]))
    else:
        candidates.append(("default", DEFAULT_DIR))
        candidates += [("default, above", str(parent / "shared" / "financebench"))
                       for parent in Path(root).resolve().parents[1:]]
    for source, raw in candidates:
        path = Path(raw)
        if not path.is_absolute():
            path = (Path(root) / path).resolve()
        if (path / QUESTIONS_FILE).is_file():
            return path
        if source != "default, above":
            tried.append(f"{path} ({source})")
    raise CorpusError(
        "FinanceBench not found; looked in: "
        + "; ".join(tried)
        + ". Clone https://github.com/patronus-ai/financebench (it holds data/ and pdfs/) and "
        f"set corpus.dir in params.yaml or the {ENV_VAR} environment variable to its path."
    )


@dataclass
class Evidence:
    doc: str
    page: int
    text: str
    full_page: str


@dataclass
class Question:
    id: str
    company: str
    doc: str
    doc_type: str
    question_type: str
    question_reasoning: str
    question: str
    answer: str
    evidence: list[Evidence] = field(default_factory=list)
    status: str = STATUS_EVALUATED

    @property
    def gold_pages(self) -> list[tuple[str, int]]:
        """Gold (doc, page) pairs, as a sorted set."""
        return sorted({(e.doc, e.page) for e in self.evidence})

    @property
    def gold_docs(self) -> list[str]:
        return sorted({e.doc for e in self.evidence} | {self.doc})

    @property
    def evidence_text(self) -> str:
        """The gold evidence snippets concatenated (the reference for BLEU/ROUGE-L of chunks)."""
        return "\n".join(e.text for e in self.evidence)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["gold_pages"] = [list(p) for p in self.gold_pages]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Question:
        d = {k: v for k, v in d.items() if k != "gold_pages"}
        d["evidence"] = [Evidence(**e) for e in d.get("evidence", [])]
        return cls(**d)


_REQUIRED_Q = ("financebench_id", "doc_name", "question")
_REQUIRED_E = ("evidence_text", "doc_name", "evidence_page_num")


def load_doc_types(path: str | Path) -> dict[str, str]:
    """doc_name -> doc type label (10K/10Q/8K/EARNINGS); identical duplicate rows are tolerated."""
    out: dict[str, str] = {}
    for lineno, row in iter_jsonl(path):
        name, raw = row.get("doc_name"), str(row.get("doc_type", "")).lower()
        if not name or raw not in DOC_TYPES:
            raise JsonlError(f"{path}:{lineno}: needs doc_name and a doc_type in {list(DOC_TYPES)}")
        label = DOC_TYPES[raw]
        if out.get(name, label) != label:
            raise JsonlError(f"{path}:{lineno}: doc {name} listed twice with different doc_type")
        out[name] = label
    return out


def load_questions(path: str | Path, doc_types: dict[str, str]) -> list[Question]:
    """Parse and validate the questions file; errors name the file and line."""
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for lineno, row in iter_jsonl(path):
        where = f"{path}:{lineno}"
        missing = [k for k in _REQUIRED_Q if k not in row]
        if missing:
            raise JsonlError(f"{where}: missing field(s) {', '.join(missing)}")
        qid = str(row["financebench_id"])
        if qid in seen:
            raise JsonlError(f"{where}: duplicate question id {qid} (first on line {seen[qid]})")
        seen[qid] = lineno
        raw_evidence = row.get("evidence") or []
        if not isinstance(raw_evidence, list):
            raise JsonlError(f"{where}: question {qid}: 'evidence' must be a list")
        evidence = []
        for j, e in enumerate(raw_evidence):
            miss = [k for k in _REQUIRED_E if k not in e]
            if miss:
                raise JsonlError(f"{where}: evidence[{j}] missing {', '.join(miss)}")
            page = e["evidence_page_num"]
            if not isinstance(page, int) or isinstance(page, bool) or page < 0:
                raise JsonlError(f"{where}: evidence[{j}].evidence_page_num must be an int >= 0")
            evidence.append(
                Evidence(
                    doc=e["doc_name"],
                    page=page,
                    text=e["evidence_text"],
                    full_page=e.get("evidence_text_full_page", ""),
                )
            )
        doc = row["doc_name"]
        if doc not in doc_types:
            raise JsonlError(f"{where}: doc {doc} is not a document of the corpus (its "
                             "document information or metadata file, or its PDFs)")
        questions.append(
            Question(
                id=qid,
                company=row.get("company", ""),
                doc=doc,
                doc_type=doc_types[doc],
                question_type=row.get("question_type") or "",
                question_reasoning=row.get("question_reasoning") or "",
                question=row["question"],
                answer=str(row.get("answer") or ""),
                evidence=evidence,
                status=STATUS_EVALUATED if evidence else STATUS_NO_GOLD,
            )
        )
    return questions


def pdf_entries(pdf_dir: Path) -> tuple[list[Path], list[dict]]:
    """The readable PDF files of a folder (links to them included), and every other ``*.pdf``
    entry with the reason it is skipped: a folder, a broken link, a device or pipe, no read
    permission."""
    ok, skipped = [], []
    for p in sorted(pdf_dir.glob("*.pdf")) if pdf_dir.is_dir() else []:
        if p.is_symlink() and not p.exists():
            reason = "broken symbolic link"
        elif p.is_dir():
            reason = "a folder, not a file"
        elif not p.is_file():
            reason = "not a regular file"
        elif not os.access(p, os.R_OK):
            reason = "not readable (permission denied)"
        else:
            ok.append(p)
            continue
        log.warning("corpus: skipping %s: %s", p, reason)
        skipped.append({"name": p.name, "reason": reason})
    return ok, skipped


def cover_text(path: Path, pages: int = COVER_PAGES) -> str:
    """The text of a PDF's first pages ("" for a file PyMuPDF cannot open: extraction reports
    it)."""
    import pymupdf

    try:
        with pymupdf.open(path, filetype="pdf") as doc:
            return "\n".join(doc[i].get_text() for i in range(min(pages, len(doc))))
    except Exception as e:  # noqa: BLE001 - any unreadable file: its fields stay empty
        log.warning("corpus: cannot read the cover of %s: %s", path, e)
        return ""


def corpus_documents(corpus_dir: Path, layout: CorpusLayout,
                     pdfs: list[Path]) -> dict[str, DocumentRecord]:
    """Every document's fields: FinanceBench's document information, or a folder corpus's
    metadata with each field it lacks read from the filing's cover page."""
    if layout.kind == "financebench":
        return read_metadata(corpus_dir / DOCINFO_FILE, repeats="last")
    meta = (read_metadata(corpus_dir / layout.metadata, dict(layout.metadata_fields))
            if layout.metadata else {})
    out = dict(meta)
    for p in pdfs:
        known = meta.get(p.stem)
        if known is None or not all((known.company, known.form, known.period_end)):
            out[p.stem] = merge(known, cover_document(p.stem, cover_text(p)))
    return dict(sorted(out.items()))


def build_manifest(corpus_dir: Path, layout: CorpusLayout | None = None
                   ) -> tuple[dict, list[Question]]:
    """Validate the corpus and describe it: input hashes, present/missing PDFs, question status."""
    layout = layout or CorpusLayout()
    if layout.kind == "folder":
        return _folder_manifest(corpus_dir, layout)[:2]
    doc_types = load_doc_types(corpus_dir / DOCINFO_FILE)
    questions = load_questions(corpus_dir / QUESTIONS_FILE, doc_types)
    pdfs, skipped = pdf_entries(corpus_dir / PDF_DIR)
    present = {p.stem for p in pdfs}
    files = {QUESTIONS_FILE: sha256_file(corpus_dir / QUESTIONS_FILE),
             DOCINFO_FILE: sha256_file(corpus_dir / DOCINFO_FILE)}
    for p in pdfs:
        files[f"{PDF_DIR}/{p.name}"] = sha256_file(p)
    manifest = {"files": files, **_docs_and_questions(questions, present, doc_types)}
    if skipped:  # only then: an unchanged corpus keeps a byte-identical manifest
        manifest["skipped_pdf_entries"] = skipped
    return manifest, questions


def _docs_and_questions(questions: list[Question], present: set[str],
                        doc_types: dict[str, str]) -> dict:
    """Marks each question whose documents are not all present ``missing_doc``, and describes
    the documents and the questions for the manifest (``no_gold`` counts only where there are
    such questions, so a corpus without them keeps its manifest)."""
    for q in questions:
        if not all(d in present for d in q.gold_docs):
            q.status = STATUS_MISSING_DOC
    referenced = sorted({d for q in questions for d in q.gold_docs})
    missing_q = sorted(q.id for q in questions if q.status == STATUS_MISSING_DOC)
    no_gold = sorted(q.id for q in questions if q.status == STATUS_NO_GOLD)
    counts = {
        "n_total": len(questions),
        "n_evaluated": len(questions) - len(missing_q) - len(no_gold),
        "n_missing_doc": len(missing_q),
        "missing_doc_ids": missing_q,
    }
    if no_gold:
        counts |= {"n_no_gold": len(no_gold), "no_gold_ids": no_gold}
    return {
        "docs": {
            "referenced": referenced,
            "present": sorted(present),
            "missing": sorted(set(referenced) - present),
            "unreferenced_present": sorted(present - set(referenced)),
        },
        "doc_types": {d: doc_types[d] for d in sorted(present | set(referenced)) if d in doc_types},
        "questions": counts,
    }


def _folder_manifest(corpus_dir: Path, layout: CorpusLayout
                     ) -> tuple[dict, list[Question], dict[str, DocumentRecord]]:
    pdfs, skipped = pdf_entries(corpus_dir / layout.pdfs)
    if not pdfs:
        raise CorpusError(f"{corpus_dir / layout.pdfs}: no readable PDF (corpus.pdfs)")
    for name in layout.inputs:
        if not (corpus_dir / name).is_file():
            raise CorpusError(f"{corpus_dir / name}: no such file (corpus.metadata or "
                              "corpus.questions)")
    documents = corpus_documents(corpus_dir, layout, pdfs)
    questions = (load_questions(corpus_dir / layout.questions,
                                {d: r.form for d, r in documents.items()})
                 if layout.questions else [])
    present = {p.stem for p in pdfs}
    files = {name: sha256_file(corpus_dir / name) for name in layout.inputs}
    for p in pdfs:
        files[f"{layout.pdfs}/{p.name}"] = sha256_file(p)
    manifest = {
        "layout": layout.kind,
        "pdf_dir": layout.pdfs,
        "inputs": layout.inputs,
        "files": files,
        **_docs_and_questions(questions, present, {d: r.form for d, r in documents.items()}),
        "document_fields": {source: sum(r.source == source for r in documents.values())
                            for source in sorted({r.source for r in documents.values()})},
    }
    if skipped:
        manifest["skipped_pdf_entries"] = skipped
    return manifest, questions, documents


def describe_corpus(corpus_dir: Path, layout: CorpusLayout
                    ) -> tuple[dict, list[Question], dict[str, DocumentRecord]]:
    """The manifest, the questions and every document's fields (the ``corpus`` stage)."""
    if layout.kind == "folder":
        return _folder_manifest(corpus_dir, layout)
    manifest, questions = build_manifest(corpus_dir, layout)
    return manifest, questions, corpus_documents(corpus_dir, layout, [])


def pdf_names(manifest: dict) -> list[str]:
    """The PDFs the manifest hashed, as paths relative to the corpus folder."""
    prefix = manifest.get("pdf_dir", PDF_DIR) + "/"
    return [n for n in manifest["files"] if n.startswith(prefix)]


def input_names(manifest: dict) -> list[str]:
    """The questions and metadata files the manifest hashed."""
    return manifest.get("inputs", [QUESTIONS_FILE, DOCINFO_FILE])


def verify_inputs(corpus_dir: Path, manifest: dict, names: list[str]) -> None:
    """Check that the files a stage reads still have the hashes the manifest recorded."""
    for name in names:
        expected = manifest["files"].get(name)
        if expected is None:
            raise CorpusError(f"{name} is not in the corpus manifest; rerun the corpus stage")
        actual = sha256_file(corpus_dir / name)
        if actual != expected:
            raise CorpusError(
                f"{corpus_dir / name} changed since the corpus stage recorded it "
                f"(sha256 {actual[:12]} != {expected[:12]}); run `dvc repro` again"
            )


def read_documents(corpus_out: Path) -> dict[str, DocumentRecord]:
    """The documents the ``corpus`` stage wrote (``corpus_out/documents.jsonl``)."""
    return {d["doc"]: DocumentRecord(**d) for d in read_jsonl(corpus_out / "documents.jsonl")}


def read_questions(corpus_out: Path) -> list[Question]:
    """The questions the ``corpus`` stage wrote (``corpus_out/questions.jsonl``), with status."""
    return [Question.from_dict(d) for d in read_jsonl(corpus_out / "questions.jsonl")]


def served(questions: list[Question]) -> list[Question]:
    """The questions the retrieval and answer stages serve: those with gold evidence (scored)
    and those without (``no_gold``), not those whose document is missing."""
    return [q for q in questions if q.status in SERVED]
