"""The answer path: statement tables -> a numeric fact store -> question parsing -> formula and
calculator -> a verification gate, with the LLM path for everything else (gated the same way).

Dependencies run one way: ``agent`` uses the other modules of this package; they use only
``fingap.io`` and ``fingap.answers.numbers``. Nothing here imports ``fingap.steps``.
"""
