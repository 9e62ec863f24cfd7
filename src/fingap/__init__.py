"""fingap: measure and close the retrieval gap in financial question answering."""

__version__ = "0.1.0"
