"""fingap: measure and close the retrieval gap in financial question answering.

Packages, by concern, with dependencies one way (tests/test_layout.py checks them):

    fingap.cli, fingap.steps       one function per DVC stage, the `fingap` command
            |
    answers -> evaluation -> training -> retrieval -> ingestion -> core
    generation -> core
"""

__version__ = "0.1.0"
