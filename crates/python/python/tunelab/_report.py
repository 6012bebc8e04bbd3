"""``tunelab.Report``: a report envelope for notebooks. It is the CLI's JSON document as a ``dict`` (every key
of the envelope as before: ``kind``, ``status``, ``config``, ``compute``, ``result``, ``reached``) with
``.frame(table)`` (a pandas table, as ``tunelab.to_frame``), ``.plot(...)`` (the kind's chart, as
``tunelab.plot.report``), ``.best`` and an HTML summary when a notebook shows it."""

from __future__ import annotations

import html
import math
from typing import Any, Dict, List, Optional

from . import _kinds
from ._frames import to_frame


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        return f"{v:.4g}"
    return str(v)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class Report(dict):  # type: ignore[type-arg]
    """A report envelope (a ``dict``) with notebook helpers; see the module doc."""

    @property
    def kind(self) -> str:
        return str(self.get("kind"))

    @property
    def status(self) -> str:
        return str(self.get("status"))

    @property
    def best(self) -> Optional[Dict[str, Any]]:
        """The chosen arm, the same shape in every report that has one: a dict with ``arm`` and ``score``
        (a tune report's ``result["best"]``, a stopped run's best so far, a comparison's first tuner's);
        ``None`` when the kind has no arms or none was scored."""
        r = self.get("result")
        if not isinstance(r, dict):
            return None
        if self.get("kind") == "compare":
            entries = r.get("entries") or []
            return entries[0].get("best") if entries else None
        b = r.get("best")
        return b if isinstance(b, dict) else None

    def frame(self, table: Optional[str] = None) -> Any:
        """One table of the report as a pandas DataFrame (``tunelab.to_frame(self, table)``)."""
        return to_frame(self, table)

    def plot(self, **kwargs: Any) -> Any:
        """The chart of the report's kind (``tunelab.plot.report(self, **kwargs)``), a matplotlib Figure."""
        from . import plot

        return plot.report(self, **kwargs)

    def tables(self) -> List[str]:
        """The names of the tables ``frame`` makes for this report's kind."""
        v = _kinds.VIEWS.get(self.kind)
        return list(v.tables) if v else []

    def _summary_rows(self) -> List[List[str]]:
        rows: List[List[str]] = [["kind", self.kind], ["status", self.status]]
        c = self.get("compute") or {}
        if c:
            done, total = c.get("done"), c.get("total")
            rows.append(["compute", f"{_fmt(c.get('wall_seconds', 0.0))} s on {_plural(int(c.get('threads', 1)), 'thread')}"
                         f"; {_fmt(done)} of {_fmt(total)} {c.get('unit', '')}"])
        r = self.get("result")
        if isinstance(r, dict):
            if r.get("partial"):
                nr = r.get("not_reached") or {}
                rows.append(["stopped", f"{_plural(len(r.get('arms') or []), 'arm')} known; not reached: "
                             + ", ".join(f"{k} {_fmt(v)}" for k, v in nr.items() if not isinstance(v, (list, dict)))])
            v = _kinds.VIEWS.get(self.kind)
            rows += [[k, t] for k, t in (v.summary(r) if v else [])]
        return rows

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>"
                       f"{html.escape(v)}</td></tr>" for k, v in self._summary_rows())
        tables = self.tables()
        hint = (f"<p>Tables: {', '.join(f'<code>.frame({t!r})</code>' for t in tables)}; chart: <code>.plot()</code>.</p>"
                if tables else "")
        return (f"<div class='tunelab-report'><strong>tunelab {html.escape(self.kind)} report</strong>"
                f"<table>{rows}</table>{hint}</div>")

    def __repr__(self) -> str:
        return "Report(" + "; ".join(f"{k}: {v}" for k, v in self._summary_rows()) + ")"
