"""Build ``annotations/<name>_questions.jsonl``: the 45 public metrics-generated questions
reworded again, blind (``annotations/WRITING_QUESTIONS.md``), from the writer's
``annotations/<name>_rewordings.json`` ({FinanceBench id: question}), with FinanceBench's gold
answers and gold pages, built the way the first rewording is. ``reword2`` is the second
rewording; ``reword3`` to ``reword11`` each were written after the one before had been
measured.

    python annotations/make_rewording_set.py reword3 && \
        python annotations/verify_questions.py annotations/reword3_questions.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from rewording_builder import build  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the rewording's name, e.g. reword2 or reword3")
    args = parser.parse_args(argv)
    path = HERE / f"{args.name}_rewordings.json"
    if not path.exists():
        raise SystemExit(f"{path}: no such rewordings file")
    rewordings = json.loads(path.read_text(encoding="utf-8"))
    build(rewordings, args.name, HERE / f"{args.name}_questions.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
