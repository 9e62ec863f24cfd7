"""DVC stage: Algorithm 1 runs (page scorer's top P pages, then chunk retrieval).

``python stages/retrieve_pages.py METHOD VARIANT [P] [routed]`` (a variant of
fingap.steps.page_variants: trained, untrained, hn, hn_windows_maxp, ...); without P (or
with ""), page_scorer.P; ``routed``: the standard condition searches only the pages of the
route_docs stage's routing.top_docs documents.
"""

import sys
from pathlib import Path

from fingap.core.params import section
from fingap.steps.page_scorer import run_page_retrieve
from fingap.steps.page_variants import page_variant
from fingap.steps.stagekit import stage


def main(method: str, variant: str, p_override: str = "", routed: str = "") -> None:
    with stage(f"retrieve_pages@{method}") as params:
        v = page_variant(variant)
        ps = section(params, "page_scorer")
        P = int(p_override) if p_override else ps.get("P")
        if routed not in ("", "routed"):
            raise SystemExit(f"retrieve_pages: 4th argument must be 'routed', got {routed!r}")
        routing = section(params, "routing") if routed else {}
        run_page_retrieve(method, v.mode, P, ps, section(params, "page_scorer_train"),
                          section(params, "retrieve"), section(params, "dense"),
                          Path("data/corpus"), Path("data/chunks/chunks.jsonl"),
                          Path("data/folds.json"), v.models, v.index, Path("data/indexes/dense"),
                          Path(f"data/runs/{method}"), Path(f"reports/page_ranking/{method}.json"),
                          Path("data/cache/embeddings.sqlite"),
                          Path("data/routing/ranking.json") if routed else None,
                          routing.get("top_docs"), v.aggregate)


if __name__ == "__main__":
    main(*sys.argv[1:])
