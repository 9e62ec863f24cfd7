"""LLM use: one interface over the backends with a cache, HyDE / Multi-HyDE passages and answer
generation. Uses ``fingap.core``."""
