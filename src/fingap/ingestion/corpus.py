"""Locating, validating and describing the FinanceBench corpus.

Conventions (FinanceBench facts, see the corpus README):
- ``evidence_page_num`` is 0-based on PyMuPDF's page list; gold pages are a *set* of
  (doc, page) pairs (two questions list the same page twice).
- Questions whose PDF is absent are not dropped: they get status ``missing_doc`` and are
  counted in every table, but not scored.
"""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..core.io import JsonlError, iter_jsonl, read_jsonl, sha256_file

log = logging.getLogger("fingap")

QUESTIONS_FILE = "data/financebench_open_source.jsonl"
DOCINFO_FILE = "data/financebench_document_information.jsonl"
PDF_DIR = "pdfs"
ENV_VAR = "FINANCEBENCH_DIR"
DEFAULT_DIR = "../shared/financebench"

# FinanceBench doc_type values -> the labels of the paper's Table 2 (annual reports count as 10K).
DOC_TYPES = {"10k": "10K", "10k_annualreport": "10K", "10q": "10Q", "8k": "8K",
             "earnings": "EARNINGS"}

STATUS_EVALUATED = "evaluated"
STATUS_MISSING_DOC = "missing_doc"


class CorpusError(RuntimeError):
    """The corpus cannot be found or is malformed."""


def locate_corpus(configured: str | None = None, root: str | Path = ".") -> Path:
    """Find FinanceBench: the param, then ``$FINANCEBENCH_DIR``, then ``../shared/financebench``.

    The default is also looked for beside every folder above ``root``: a queued or ``--temp``
    DVC experiment runs in a copy under ``.dvc/tmp/exps/``, where ``../shared/financebench``
    no longer points beside the repository."""
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


_REQUIRED_Q = ("financebench_id", "doc_name", "question_type", "question", "answer", "evidence")
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
        if not isinstance(row["evidence"], list) or not row["evidence"]:
            raise JsonlError(f"{where}: question {qid} has no evidence list")
        evidence = []
        for j, e in enumerate(row["evidence"]):
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
            raise JsonlError(f"{where}: doc {doc} is not in the document information file")
        questions.append(
            Question(
                id=qid,
                company=row.get("company", ""),
                doc=doc,
                doc_type=doc_types[doc],
                question_type=row["question_type"],
                question_reasoning=row.get("question_reasoning") or "",
                question=row["question"],
                answer=str(row["answer"]),
                evidence=evidence,
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


def build_manifest(corpus_dir: Path) -> tuple[dict, list[Question]]:
    """Validate the corpus and describe it: input hashes, present/missing PDFs, question status."""
    doc_types = load_doc_types(corpus_dir / DOCINFO_FILE)
    questions = load_questions(corpus_dir / QUESTIONS_FILE, doc_types)
    pdfs, skipped = pdf_entries(corpus_dir / PDF_DIR)
    present = {p.stem for p in pdfs}
    referenced = sorted({d for q in questions for d in q.gold_docs})
    for q in questions:
        if not all(d in present for d in q.gold_docs):
            q.status = STATUS_MISSING_DOC
    files = {QUESTIONS_FILE: sha256_file(corpus_dir / QUESTIONS_FILE),
             DOCINFO_FILE: sha256_file(corpus_dir / DOCINFO_FILE)}
    for p in pdfs:
        files[f"{PDF_DIR}/{p.name}"] = sha256_file(p)
    missing_q = sorted(q.id for q in questions if q.status == STATUS_MISSING_DOC)
    manifest = {
        "files": files,
        "docs": {
            "referenced": referenced,
            "present": sorted(present),
            "missing": sorted(set(referenced) - present),
            "unreferenced_present": sorted(present - set(referenced)),
        },
        "doc_types": {d: doc_types[d] for d in sorted(present | set(referenced)) if d in doc_types},
        "questions": {
            "n_total": len(questions),
            "n_evaluated": len(questions) - len(missing_q),
            "n_missing_doc": len(missing_q),
            "missing_doc_ids": missing_q,
        },
    }
    if skipped:  # only then: an unchanged corpus keeps a byte-identical manifest
        manifest["skipped_pdf_entries"] = skipped
    return manifest, questions


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


def read_questions(corpus_out: Path) -> list[Question]:
    """The questions the ``corpus`` stage wrote (``corpus_out/questions.jsonl``), with status."""
    return [Question.from_dict(d) for d in read_jsonl(corpus_out / "questions.jsonl")]
