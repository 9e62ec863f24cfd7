"""Scoring with written-down conventions: retrieval and answer metrics, StrictAcc, bootstrap
statistics, gap attribution, reports, figures, expected scores and fingap best's per-fold
selection. Uses ``fingap.retrieval``, ``fingap.ingestion`` and ``fingap.core``."""
