"""From PDFs to pages and facts: locating and validating the corpus, page extraction, gold-page
alignment, chunking, statement tables and printed numbers, and the parser fingerprint that
catches parser regressions. Uses only ``fingap.core``."""
