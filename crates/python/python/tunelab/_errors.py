"""The exceptions of tunelab (raised by the extension ``tunelab._core`` with the core's message).

Each is a ``TunelabError`` and also the built-in exception Python code expects for its kind of failure:
``ConfigError`` and ``DataError`` are ``ValueError`` s (a bad value was passed), ``NumericalError`` is a
``RuntimeError`` (the run failed), ``IoError`` is an ``OSError``. ``Interrupted`` is the
``KeyboardInterrupt`` raised once a run stopped by Ctrl-C has returned its partial report.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional


class TunelabError(Exception):
    """An error reported by the tunelab core."""


class ConfigError(TunelabError, ValueError):
    """A configuration value is missing, unknown, out of range or inconsistent."""


class DataError(TunelabError, ValueError):
    """A problem with data (shapes, files, values)."""


class NumericalError(TunelabError, RuntimeError):
    """A numerical failure that could not be recovered from."""


class IoError(TunelabError, OSError):
    """Reading or writing a file failed."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run: ``report`` is the stopped run's report envelope (``status == "stopped"``,
    ``reached``: the progress up to the stop); after ``run_seeds``, ``reports`` holds the reports of the runs
    that finished before it, the stopped one last."""

    def __init__(self, report: Dict[str, Any], reports: Optional[List[Dict[str, Any]]] = None):
        super().__init__("the run was stopped by Ctrl-C; its partial report is this exception's .report")
        self.report = report
        self.reports = [report] if reports is None else reports

    def __reduce__(self) -> Any:
        return (Interrupted, (self.report, self.reports))
