"""The package version, in one place (read by ``judgestats.__version__`` and the report)."""

__version__ = "0.1.0"
