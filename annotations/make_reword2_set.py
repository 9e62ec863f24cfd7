"""Build ``annotations/reword2_questions.jsonl``: the 45 public metrics-generated questions
reworded a second time, blind (``annotations/WRITING_QUESTIONS.md``), from the writer's
``annotations/reword2_rewordings.json`` ({FinanceBench id: question}), with FinanceBench's gold
answers and gold pages, built the way the first rewording is.

    python annotations/make_reword2_set.py && \
        python annotations/verify_questions.py annotations/reword2_questions.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from rewording_builder import build  # noqa: E402


def main() -> int:
    rewordings = json.loads((HERE / "reword2_rewordings.json").read_text(encoding="utf-8"))
    build(rewordings, "reword2", HERE / "reword2_questions.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
