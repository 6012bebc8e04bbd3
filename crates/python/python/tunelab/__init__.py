"""tunelab from Python: Stein discrepancies, the built-in experiments, and MAMBA for your own samplers.

Three uses (README, "Python and clusters"):

- ``tunelab.ksd(samples, scores, ...)`` and ``tunelab.fssd(...)``: the core's kernel and finite-set Stein
  discrepancies on numpy arrays (no copy for C-contiguous float64 arrays; the GIL is released while computing;
  the same bits as ``tunelab ksd`` / ``tunelab fssd`` of the CLI on the same CSV);
- ``tunelab.run(config, progress=...)``: any experiment of the one JSON contract (``kind``: tune, compare,
  bandit, hoag, lr-schedule, step-size), presets via ``tunelab.presets()`` / ``tunelab.preset(kind, name)``;
- ``tunelab.Mamba(arms, budget, eta)``: MAMBA's successive halving in ask/tell form for samplers you write
  (JAX, PyTorch, numpy): ``ask()`` proposes arms and budgets, you run the chains, ``tell()`` scores and prunes.

Distributed versions on Ray: ``tunelab.ray`` (rounds, seeds) and ``tunelab.tune`` (a Ray Tune scheduler).
Reports are dicts (the CLI's JSON document) with sample matrices as ``(n, d)`` numpy arrays;
``tunelab.run`` returns a ``tunelab.Report`` (a dict with ``.frame(table)``, ``.plot()``, ``.best`` and an HTML
summary in notebooks); ``tunelab.to_frame(report)`` gives pandas tables, ``tunelab.plot`` charts made for each
kind's data as matplotlib Figures that show in Jupyter (``plot.scores``, ``plot.regret``, ``plot.traces``,
``plot.tvo``, ``plot.hoag``, ``plot.lr_schedule``, ``plot.step_size``, ``plot.report``) and
``tunelab.to_json(report)`` the CLI's JSON text. Rounds are numbered from 0 everywhere.
In a notebook, ``tunelab.widget(kind=..., config=..., preset=..., lesson=...)`` shows the page's panel (runs in the
notebook's browser) and ``tunelab.show(report)`` a report in its panel's charts (``tunelab[notebook]``: anywidget).
Errors of the core are raised as ``ConfigError`` / ``DataError`` (``ValueError`` s), ``NumericalError`` (a
``RuntimeError``) or ``IoError`` (an ``OSError``), all ``TunelabError``, with the core's message; Ctrl-C during
a run raises ``Interrupted`` (a ``KeyboardInterrupt``) carrying the stopped run's report.
"""

from __future__ import annotations

import io
import json
import math
import os
import signal
import sys
import tempfile
import threading
import time
import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._errors import ConfigError, DataError, Interrupted, IoError, NumericalError, TunelabError
from ._frames import to_frame
from ._report import Report
from . import plot  # matplotlib is imported by its functions, on their first call
from .notebook import show, widget  # anywidget is imported on their first call (the `notebook` extra)

__version__ = _core.__version__
__all__ = [
    "ksd", "fssd", "run", "check", "presets", "kinds", "preset", "with_seed", "run_seeds", "Mamba", "mamba_run",
    "score_arm", "with_repeats", "merge_bandit", "to_frame", "to_json", "plot", "Report", "widget", "show",
    "TunelabError", "DataError", "ConfigError", "NumericalError", "IoError", "Interrupted",
]


def _matrix(a: Any, name: str) -> np.ndarray:
    """A C-contiguous float64 2-D view of ``a`` (no copy when it already is one; a 1-D array is one column)."""
    x = np.ascontiguousarray(a, dtype=np.float64)
    if x.ndim == 1:
        x = x.reshape(-1, 1)
    if x.ndim != 2:
        raise DataError(f"data error: {name} must be a 2-D array (n x d), got {x.ndim} dimensions")
    return x


def ksd(samples, scores, c: float = 1.0, beta: float = -0.5, scale: str = "fixed", estimator: str = "v",
        full: bool = False):
    """Kernel Stein discrepancy with the IMQ kernel ``(c^2 + |x-y|^2)^beta`` (Gorham & Mackey 2017).

    ``samples`` and ``scores`` (``grad log p`` at the samples) are ``n x d`` arrays. Options as the CLI's
    ``tunelab ksd``: ``scale`` in ``fixed`` (the given c), ``median`` (c times the median pairwise distance),
    ``median-precond`` (coordinates standardised first); ``estimator`` in ``v``, ``u``, ``linear``. Defaults
    (fixed, c = 1, beta = -1/2, V-statistic) are SGMCMCJax's ``imq_KSD``. Returns the KSD (a float), or with
    ``full=True`` a dict ``{ksd, ksd_sq, n, d, c}``.
    """
    x, g = _matrix(samples, "samples"), _matrix(scores, "scores")
    k, k2, n, d, c_used = _core.ksd(x, g, float(c), float(beta), scale, estimator)
    if full:
        return {"ksd": k, "ksd_sq": k2, "n": n, "d": d, "c": c_used}
    return k


def fssd(samples, scores, locations, gauss_sigma2: Optional[float] = None, imq_c: Optional[float] = None,
         imq_beta: Optional[float] = None, full: bool = False):
    """Squared finite-set Stein discrepancy at ``locations`` (J x d; Jitkrittum et al. 2017, eqs. 3-4).

    Kernel: Gaussian with ``gauss_sigma2``, or IMQ with ``imq_c`` and ``imq_beta``, as the CLI's
    ``tunelab fssd``. Returns FSSD^2 (V-statistic), or with ``full=True`` ``{fssd_sq, fssd_sq_u, j}``.
    """
    x, g, v = _matrix(samples, "samples"), _matrix(scores, "scores"), _matrix(locations, "locations")
    f, fu, j = _core.fssd(x, g, v, gauss_sigma2, imq_c, imq_beta)
    if full:
        return {"fssd_sq": f, "fssd_sq_u": fu, "j": j}
    return f


def presets() -> Dict[str, List[str]]:
    """The built-in presets of every experiment kind: ``{kind: [names]}``."""
    return json.loads(_core.presets())


def kinds() -> Dict[str, Dict[str, Any]]:
    """Every experiment kind of the core's registry: ``{kind: {label, unit, presets, panel}}`` (``unit``: what
    its progress counts; ``panel``: the page panel, and widget, that shows it)."""
    return {k.pop("name"): k for k in json.loads(_core.kinds())}


def preset(kind: str, name: str) -> Dict[str, Any]:
    """The config (a dict, ``kind`` included) of the preset ``name`` of ``kind``."""
    return json.loads(_core.preset(kind, name))


def _config_text(config: Union[Dict[str, Any], str]) -> str:
    if isinstance(config, dict):
        return json.dumps(config)
    if isinstance(config, str):
        text = config.strip()
        if text.startswith("{"):
            return text
        if os.path.exists(config):
            with open(config, encoding="utf-8") as f:
                return f.read()
        if "/" in text and not text.endswith(".json"):
            kind, name = text.split("/", 1)
            return _core.preset(kind, name)
        raise IoError(f"I/O error: cannot read {config}: not a JSON document, a file, or KIND/PRESET")
    raise ConfigError("invalid configuration: config must be a dict, JSON text, a file path or KIND/PRESET")


def check(config: Union[Dict[str, Any], str]) -> Dict[str, Any]:
    """Checks a config once: ``{kind, config (defaults filled), summary, data, unit}``."""
    return json.loads(_core.check(_config_text(config)))


def _shape(v: Any) -> Any:
    """The report with every sample matrix of the JSON document (a flat row-major ``samples`` list next to its
    ``dim``, as in a tune report's ``best``) as an ``(n, dim)`` float64 array."""
    if isinstance(v, dict):
        out = {k: _shape(x) for k, x in v.items()}
        x, d = out.get("samples"), out.get("dim")
        if isinstance(x, list) and isinstance(d, int) and d > 0 and len(x) % d == 0:
            out["samples"] = np.asarray(x, dtype=np.float64).reshape(-1, d)
        return out
    if isinstance(v, list):
        return [_shape(x) for x in v]
    return v


def _json_default(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        # a sample matrix goes back to the document's flat row-major list (``dim`` is next to it)
        return v.ravel().tolist()
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(f"{type(v).__name__} is not JSON serializable")


def to_json(report: Dict[str, Any], **kwargs: Any) -> str:
    """The JSON text of a report as the CLI writes it (``--out``): sample matrices back to flat row-major lists
    next to their ``dim``. Keyword arguments go to ``json.dumps`` (``indent=2``, ...)."""
    return json.dumps(report, default=_json_default, **kwargs)


class _Progress:
    """``progress=True``: a tqdm bar (``tqdm.auto``: a widget in notebooks) when tqdm is installed, otherwise
    plain lines on stderr that read well in cluster logs: done / total, percent, elapsed and ETA each time the
    run passes another tenth, and after 5 s without a line (at the next progress event); one at the end.

    A phase with a progress of its own (the event's ``stage``, from the core: a comparison's exact reference
    sampler before its tuners, each tuner's fresh evaluation chain after its tuning run) gets its own bar or
    lines, named by its ``label``, in its own unit and time."""

    def __init__(self, unit: str):
        self.unit = unit
        self.bar: Any = None
        self.start = time.monotonic()
        self.last_line = -math.inf
        self.last_tenth = -1
        self.stage: Optional[str] = None
        try:
            from tqdm.auto import tqdm
        except ImportError:
            self.tqdm = None
        else:
            self.tqdm = tqdm

    def __call__(self, event: Dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "progress":
            stage = event.get("stage")
            if stage:
                self._show(str(stage["label"]), float(stage["done"]), float(stage["total"]), str(stage["unit"]))
            else:
                self._show(None, float(event["done"]), float(event["total"]), self.unit)
        elif kind == "finished":
            if self.bar is not None:
                self.bar.close()
            else:
                print(f"tunelab: {event.get('status')} after {float(event.get('seconds', 0.0)):.1f} s",
                      file=sys.stderr, flush=True)

    def _show(self, stage: Optional[str], done: float, total: float, unit: str) -> None:
        now = time.monotonic()
        if stage != self.stage:
            # a new phase: a new bar, or lines counted from its start
            if self.bar is not None:
                self.bar.close()
                self.bar = None
            self.stage, self.start, self.last_tenth, self.last_line = stage, now, -1, -math.inf
        if self.tqdm is not None:
            # whole counts print as such (96/96, not 96.0/96.0)
            done_n, total_n = (int(v) if v.is_integer() else v for v in (done, total))
            if self.bar is None:
                self.bar = self.tqdm(total=total_n, unit=f" {unit}", desc=stage, file=sys.stderr, dynamic_ncols=True)
            self.bar.total = total_n
            self.bar.update(done_n - self.bar.n)
            return
        tenth = int(10 * done / total) if total > 0 else 0
        if tenth > self.last_tenth or now - self.last_line >= 5.0:
            self.last_tenth, self.last_line = tenth, now
            elapsed = now - self.start
            eta = elapsed * (total - done) / done if done > 0 else math.nan
            pct = 100.0 * done / total if total > 0 else 0.0
            what = f"{stage} " if stage else ""
            print(f"tunelab: {what}{done:g}/{total:g} {unit} ({pct:.0f}%), {elapsed:.0f} s, ETA {eta:.0f} s",
                  file=sys.stderr, flush=True)


def _table_text(data: Any, label: str) -> str:
    """CSV text of a pandas DataFrame (its columns; no index), a ``(features, labels)`` pair or a 2-D array
    (the last column is the label, named ``label``; the others ``x0, x1, ...``)."""
    if hasattr(data, "to_csv") and hasattr(data, "columns"):
        return str(data.to_csv(index=False))
    if isinstance(data, tuple) and len(data) == 2:
        x = np.asarray(data[0], dtype=np.float64)
        y = np.asarray(data[1], dtype=np.float64).reshape(-1, 1)
        x = x.reshape(-1, 1) if x.ndim == 1 else x
        if x.ndim != 2 or x.shape[0] != y.shape[0]:
            raise DataError(f"data error: data=(features, labels): features of shape {x.shape} and {y.shape[0]} labels do not fit")
        a = np.hstack([x, y])
    else:
        a = np.asarray(data, dtype=np.float64)
        if a.ndim != 2 or a.shape[1] < 2:
            raise DataError(f"data error: data= as an array must be 2-D with at least one feature column and the label column last, got shape {a.shape}")
    names = [f"x{k}" for k in range(a.shape[1] - 1)] + [label]
    buf = io.StringIO()
    # 17 significant digits: the core parses back the same doubles
    np.savetxt(buf, a, fmt="%.17g", delimiter=",", header=",".join(names), comments="")
    return buf.getvalue()


# Ctrl-C: a second SIGINT this soon after the first is the same request (``timeout -s INT`` signals the process
# and its group: two SIGINTs milliseconds apart), not a second one that would lose the stopped report.
_SAME_CTRL_C = 1.0


class _Lingering:
    """The SIGINT handler left behind by a stopped run until a second has passed since its Ctrl-C: ignores
    SIGINT until then; afterwards puts the previous handler back and hands it the signal."""

    def __init__(self, prev: Any, until: float):
        self.prev, self.until = prev, until

    def __call__(self, signum: int, frame: Any) -> Any:
        if time.monotonic() < self.until:
            return None
        if signal.getsignal(signal.SIGINT) is self:
            signal.signal(signal.SIGINT, self.prev)
        return self.prev(signum, frame)


class _CtrlC:
    """During ``run`` on the main thread: the first SIGINT goes to the previous handler (Python's: a
    ``KeyboardInterrupt``, which stops the run), later ones within a second are ignored, so the stopped report
    reaches ``Interrupted``. Elsewhere (other threads, a handler that is not a callable) it does nothing."""

    def __init__(self) -> None:
        self.first: Optional[float] = None
        self.prev: Any = None

    def __enter__(self) -> "_CtrlC":
        if threading.current_thread() is not threading.main_thread():
            return self
        prev = signal.getsignal(signal.SIGINT)
        if isinstance(prev, _Lingering):
            prev = prev.prev
        if not callable(prev):
            return self
        self.prev = prev
        signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> Any:
        now = time.monotonic()
        if self.first is None:
            self.first = now
            return self.prev(signum, frame)
        if now - self.first < _SAME_CTRL_C:
            return None
        return self.prev(signum, frame)

    def __exit__(self, *exc: Any) -> None:
        if self.prev is None:
            return
        if self.first is not None and time.monotonic() - self.first < _SAME_CTRL_C:
            signal.signal(signal.SIGINT, _Lingering(self.prev, self.first + _SAME_CTRL_C))
        else:
            signal.signal(signal.SIGINT, self.prev)


def _is_table(data: Any) -> bool:
    return (hasattr(data, "to_csv") and hasattr(data, "columns")) or isinstance(data, (tuple, np.ndarray, list))


def run(config: Union[Dict[str, Any], str], progress: Union[bool, Callable[[Dict[str, Any]], Any], None] = None, *,
        data: Any = None, csv: Optional[str] = None, label: Optional[str] = None,
        threads: Optional[int] = None, standardize: bool = False,
        checkpoint: Optional[Union[str, "os.PathLike[str]"]] = None,
        resume: Optional[Union[str, "os.PathLike[str]"]] = None) -> Report:
    """Runs an experiment of any kind and returns its report envelope (a ``tunelab.Report``: a dict).

    ``config``: a dict (the same JSON document as ``tunelab run --config`` and the page), JSON text, a path
    to a JSON file, or ``"KIND/PRESET"`` (for example ``"tune/paper-logreg"``; kinds: tune, compare, bandit,
    hoag, lr-schedule, step-size, tvo; ``tunelab.presets()`` lists the presets).

    ``progress``: ``True`` shows a progress bar (tqdm when installed, notebook-aware; plain lines on stderr
    otherwise); a callable ``progress(event)`` receives every event dict (``{"type": "started" | "progress" |
    "finished", ...}``) on the calling thread.

    ``data``: the data set, for a config that reads one (any tune or compare preset: it replaces the preset's
    data, as the CLI's ``--data``). A path (``str`` or ``os.PathLike``) to a CSV file; a pandas DataFrame; a
    ``(features, labels)`` pair or a 2-D array (label last); or CSV text. ``label``: the label column (default
    ``y``; for a DataFrame, the name of its label column). For a config whose data source is an upload
    (``{"source": "upload"}``) a table is handed over as the upload; for any other config that reads data a
    table is written to a temporary CSV file and run as ``data=PATH`` (the report's config names that file,
    deleted after the run). ``standardize=True`` standardises the features of ``data`` (the CLI's
    ``--standardize``). ``csv=PATH`` is the older spelling of ``data=PATH``. ``threads``: the size of the
    run's thread pool (default: all cores).

    Returns the envelope ``{kind, status, config, compute, result, ...}``; sample matrices in it (a tune
    report's ``result["best"]["samples"]``) are ``(n, d)`` numpy arrays (``to_json`` writes the CLI's flat
    lists back). ``best`` (``report.best``) has the same shape in every report with arms: a dict with ``arm``
    and ``score`` (a tune report's also has the arm's step, batch, ...; ``Mamba.report()``'s its ``params``).

    Warnings (``warnings.warn``, category ``UserWarning``): features that look unscaled while standardize is
    off, and a chosen step size at the edge of its grid.

    Checkpoints: ``checkpoint=PATH`` writes the run's state (the config, the rounds done, every chain, sample
    store, RNG position and score so far; a bandit run's pulls and rewards) to PATH after every round of a tune
    or compare run, every chunk of rounds of a bandit run and every window of a step-size run, replaced
    atomically, as the CLI's ``--checkpoint``; ``resume=PATH`` continues the run such a file saved
    (``config`` must be the config it was written for, e.g. the same preset): the report is the one the run
    would have returned without the interruption, bit for bit (timings aside). Give both (the same PATH) to keep
    saving while resuming. Other kinds raise ``ConfigError``.

    Stopping: Ctrl-C stops the run at its next check and then raises ``tunelab.Interrupted`` (a
    ``KeyboardInterrupt``) whose ``report`` is the stopped run's envelope (``status == "stopped"``,
    ``reached``: the progress up to the stop; ``result``: what it reached, with ``"partial": True`` — for tune
    and compare every arm scored so far, the best so far and the rounds not reached), as the CLI writes a
    partial report. A second Ctrl-C within a second of the first is ignored (it is the same request). An
    exception raised by ``progress`` also stops the run and is re-raised, with the stopped report as its
    ``report`` attribute. Failures of the core raise ``ConfigError``, ``DataError``, ``NumericalError`` or
    ``IoError``.
    """
    text = _config_text(config)
    cb: Optional[Callable[[str], None]] = None
    if progress is True:
        progress = _Progress(json.loads(_core.check(text))["unit"])
    elif progress is False:
        progress = None
    if progress is not None:
        if not callable(progress):
            raise ConfigError(f"the keyword argument progress must be True, False, None or a callable, not {type(progress).__name__}")
        user = progress

        def cb(event_text: str) -> None:
            user(json.loads(event_text))
    if data is not None and csv is not None:
        raise ConfigError("give the keyword argument data= or csv=, not both")
    csv_text: Optional[str] = None
    csv_path: Optional[str] = csv
    temp: Optional[str] = None
    if isinstance(data, os.PathLike) or (isinstance(data, str) and "\n" not in data):
        csv_path = os.fspath(data)
    elif data is not None:
        checked = json.loads(_core.check(text))
        req = checked.get("data") or {}
        upload = bool(req) and req.get("path") is None
        source = ((checked.get("config") or {}).get("data") or {}).get("source")
        if not req and source == "none":
            raise ConfigError(f"data= is not used: this {checked['kind']} config reads no data set (its data source is "
                              f"\"none\": the model needs no data); give a config or preset whose model reads data")
        if upload and label is not None and label != req.get("label"):
            raise ConfigError(f"the keyword argument label={label!r} does not fit: this config's upload reads the "
                              f"label column {req.get('label')!r}")
        if isinstance(data, bytes):
            table = data.decode("utf-8")
        elif isinstance(data, str):
            table = data
        else:
            table = _table_text(data, (req.get("label") if upload else label) or "y")
        if upload:
            csv_text = table
        else:
            # any other config that reads data: the table as a file, as the CLI's --data FILE
            fd, temp = tempfile.mkstemp(prefix="tunelab-data-", suffix=".csv")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(table)
            csv_path = temp
    try:
        with _CtrlC():
            out, exc, advice = _core.run(text, cb, csv_text, csv_path, (label or "y") if csv_path is not None else None,
                                         threads, bool(standardize),
                                         None if checkpoint is None else os.fspath(checkpoint),
                                         None if resume is None else os.fspath(resume))
            report = Report(_shape(json.loads(out)))
    except ConfigError as e:
        if temp is not None and temp in str(e):
            # the temporary file is ours, not the user's: name the keyword argument instead
            raise ConfigError(str(e).replace(f'data="{temp}"', "data= (a table)")) from None
        raise
    finally:
        if temp is not None:
            os.unlink(temp)
    for w in advice:
        warnings.warn(w, UserWarning, stacklevel=2)
    if exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            raise Interrupted(report) from None
        try:
            exc.report = report
        except AttributeError:
            pass
        raise exc
    return report


def with_seed(config: Union[Dict[str, Any], str], seed: int) -> Dict[str, Any]:
    """The config (a dict) with its seed replaced, as the CLI's ``--seed``."""
    return json.loads(_core.with_seed(_config_text(config), int(seed)))


def with_repeats(config: Union[Dict[str, Any], str], lo: int, hi: int) -> Dict[str, Any]:
    """A bandit config (a dict) that runs only repeats ``lo .. hi - 1`` of its ``repeats``, each with the random
    streams it has in the whole run (``repeat_range`` of the config); its report carries the raw per-repeat
    values that ``merge_bandit`` needs."""
    cfg = json.loads(_config_text(config))
    if cfg.get("kind") != "bandit":
        raise ConfigError(f"invalid configuration: repeat ranges are for bandit configs, not {cfg.get('kind')!r}")
    cfg["repeat_range"] = [int(lo), int(hi)]
    return cfg


def merge_bandit(reports: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """Merges the report envelopes of ``run(with_repeats(config, lo, hi))`` over ranges that cover all repeats
    (in any order) into the envelope of ``run(config)``: the same numbers, bit for bit (wall-clock fields
    aside: ``wall_seconds`` and ``seconds`` are the longest part's). Raises ``ConfigError`` when the parts do
    not fit together."""
    if not reports:
        raise ConfigError("invalid configuration: merging bandit reports: no reports given")
    for r in reports:
        if r.get("kind") != "bandit" or r.get("status") != "complete":
            raise ConfigError("invalid configuration: merging bandit reports: every part must be a complete bandit run")
    merged = json.loads(_core.merge_bandit([json.dumps(r["result"]) for r in reports]))
    first = min(reports, key=lambda r: r["config"]["repeat_range"][0])
    out = dict(first)
    out["config"] = {k: v for k, v in first["config"].items() if k != "repeat_range"}
    out["compute"] = dict(first["compute"], wall_seconds=max(r["compute"]["wall_seconds"] for r in reports))
    out["result"] = merged
    return out


def run_seeds(config: Union[Dict[str, Any], str], seeds: Iterable[int], **kwargs: Any) -> List[Dict[str, Any]]:
    """``run`` once per seed on this machine (``tunelab.ray.seeds`` spreads the same runs over a cluster).

    Ctrl-C stops the current run and raises ``Interrupted``: its ``report`` is that run's stopped report and
    ``reports`` the reports of every run so far (the finished ones, then the stopped one); the later seeds do
    not run."""
    out: List[Dict[str, Any]] = []
    for s in seeds:
        try:
            out.append(run(with_seed(config, s), **kwargs))
        except Interrupted as e:
            raise Interrupted(e.report, out + [e.report]) from None
    return out


def mamba_run(arms: Union[int, Sequence[Any]], run_arm: Callable, budget: float, eta: int = 3, *, seed: int = 0,
              checkpoint: Optional[Union[str, "os.PathLike[str]"]] = None, **scoring) -> Dict[str, Any]:
    """A whole MAMBA run over samplers you write, on this machine.

    ``run_arm(arm, budget, state, rng_seed) -> (samples, scores, state)`` runs arm ``arm`` (an entry of
    ``arms``) for ``budget`` more units from ``state`` (``None`` the first time; whatever it returned last
    round otherwise: warm starts) and returns that round's samples and scores (``grad log p`` at them).
    ``rng_seed`` is ``[seed, arm id, round]`` (for ``np.random.default_rng``). Scoring keywords as
    ``Mamba``. Returns ``Mamba.report()``; ``tunelab.ray.mamba`` runs the arms of each round as Ray tasks and
    returns the same report.

    ``checkpoint=PATH``: after every round the run's state (``Mamba.state()`` and the arms' ``state`` values,
    which must pickle) is written to PATH (a pickle, replaced atomically); when PATH exists at the start, the
    run continues from it. A run killed at any point (Ctrl-C, SIGKILL, a closed laptop) and started again with
    the same arguments repeats at most the round it was in, and ends with the same report, bit for bit, as a
    run never interrupted (the ``rng_seed`` of each arm and round does not depend on the interruption).
    """
    import pickle

    states: Dict[int, Any] = {}
    m: Optional[Mamba] = None
    if checkpoint is not None and os.path.exists(checkpoint):
        with open(checkpoint, "rb") as f:
            saved = pickle.load(f)
        if not isinstance(saved, dict) or saved.get("version") != 1 or saved.get("seed") != int(seed):
            raise ConfigError(f"the keyword argument checkpoint={os.fspath(checkpoint)!r} names a file that is not "
                              f"this run's checkpoint (a mamba_run checkpoint of seed {int(seed)})")
        m = Mamba.from_state(saved["mamba"])
        states = saved["states"]
    if m is None:
        m = Mamba(arms, budget, eta, **scoring)
    while (ask := m.ask()) is not None:
        results = {}
        for a in ask.arms:
            x, g, states[a] = run_arm(m.arms[a], ask.budget, states.get(a), [int(seed), a, ask.round])
            results[a] = (x, g)
        for a in m.tell(results):
            states.pop(a, None)
        if checkpoint is not None:
            tmp = f"{os.fspath(checkpoint)}.tmp"
            with open(tmp, "wb") as f:
                pickle.dump({"version": 1, "seed": int(seed), "mamba": m.state(), "states": states}, f)
            os.replace(tmp, checkpoint)
    return m.report()


def score_arm(config: Dict[str, Any], samples, scores) -> Tuple[float, int]:
    """``(score, rows scored)`` of one arm under the kernel of a ``Mamba`` config (``Mamba.config``): what
    ``Mamba.tell`` computes, for code that scores where the chains ran (a Ray task, another machine)."""
    return _core.score_arm_with(json.dumps(config), _matrix(samples, "samples"), _matrix(scores, "scores"))


class Mamba:
    """MAMBA (Coullon, South & Nemeth 2023, Algorithm 1) driving samplers written in Python.

    ``arms``: the number of arms, or a sequence of arm descriptions (anything: dicts of step size and batch
    size, sampler objects); arm ids are ``0..M-1`` in that order. ``budget``: R, the budget of the arm that
    survives every round, in your unit (gradient evaluations make results independent of the machine).
    ``eta``: the reduction factor (default 3). Scoring keywords: ``kernel`` (``per-arm``, the default:
    each arm standardised, median length, U-statistic; ``plain``: c = 1, beta = -1/2, V, the paper's KSD;
    ``run``: one preconditioner ``precond_sd`` for the whole run, for example the Laplace sd at the MAP),
    ``c``, ``beta``, ``scale``, ``estimator``, ``max_samples`` (rows scored per arm, thinned evenly; 1000).

    Loop::

        m = tunelab.Mamba(arms, budget=2e7, eta=3)
        while (ask := m.ask()) is not None:
            results = {a: run_chain(m.arms[a], ask.budget) for a in ask.arms}   # (samples, scores) each
            m.tell(results)
        m.report()["best"]

    ``tell`` takes ``{arm: (samples, scores)}`` (or a list of ``(arm, samples, scores)``) for the arms of the
    round; samples are the round's draws of each arm (continue each arm's chain between rounds: warm starts).

    Checkpoints: ``state()`` is a plain dict (JSON when the arm descriptions are) and ``Mamba.from_state``
    rebuilds the run from it; a ``Mamba`` also pickles. A resumed run asks the same rounds and ends with the
    same report as one that was never interrupted.
    """

    class Ask(tuple):
        """``(round, arms, budget)`` with names."""

        __slots__ = ()

        def __new__(cls, round: int, arms: List[int], budget: float):
            return tuple.__new__(cls, (round, arms, budget))

        round = property(lambda self: self[0])
        arms = property(lambda self: self[1])
        budget = property(lambda self: self[2])

        def __repr__(self) -> str:
            return f"Ask(round={self[0]}, arms={self[1]}, budget={self[2]})"

    def __init__(self, arms: Union[int, Sequence[Any]], budget: float, eta: int = 3, *, kernel: Optional[str] = None,
                 precond_sd: Optional[Iterable[float]] = None, c: Optional[float] = None,
                 beta: Optional[float] = None, scale: Optional[str] = None, estimator: Optional[str] = None,
                 max_samples: int = 1000):
        for key, value, known in (("kernel", kernel, ("per-arm", "plain", "run")),
                                  ("scale", scale, ("fixed", "median", "median-precond", "median_precond")),
                                  ("estimator", estimator, ("v", "V", "u", "U", "linear"))):
            if value is not None and value not in known:
                raise ConfigError(f"the keyword argument {key}={value!r} of tunelab.Mamba must be one of "
                                  + ", ".join(repr(k) for k in known))
        if isinstance(arms, int):
            self.arms: List[Any] = list(range(arms))
        else:
            self.arms = list(arms)
        cfg: Dict[str, Any] = {"arms": len(self.arms), "budget": float(budget), "eta": int(eta),
                               "max_samples": int(max_samples)}
        for key, value in (("kernel", kernel), ("c", c), ("beta", beta), ("scale", scale),
                           ("estimator", estimator)):
            if value is not None:
                cfg[key] = value
        if precond_sd is not None:
            cfg["precond_sd"] = [float(s) for s in precond_sd]
        self.config = cfg
        self._inner = _core.AskTell(json.dumps(cfg))

    def ask(self) -> Optional["Mamba.Ask"]:
        """The round to run: ``Ask(round, arms, budget)`` (budget per arm, on top of what each arm ran), or
        ``None`` when every round was told. Asking again before ``tell`` returns the same round."""
        a = self._inner.ask()
        return None if a is None else Mamba.Ask(*a)

    def score(self, samples, scores) -> Tuple[float, int]:
        """``(score, rows scored)`` of one arm's samples under the run's kernel (lower is better)."""
        return self._inner.score(_matrix(samples, "samples"), _matrix(scores, "scores"))

    def tell(self, results) -> List[int]:
        """Scores the round's arms and prunes: ``{arm: (samples, scores)}`` or ``[(arm, samples, scores)]``
        (``(n, d)`` arrays, the same ``d`` for every arm). Returns the pruned arm ids.

        Divergence: an arm whose samples or scores hold a NaN or an infinity in any row is a diverged chain.
        It scores +inf (its score is ``None`` in the report), ranks last and is pruned first, as the built-in
        tuner treats a diverged arm; so does an arm with fewer than 2 rows. The other arms are scored as
        usual; no exception is raised."""
        items = results.items() if isinstance(results, dict) else [(r[0], (r[1], r[2])) for r in results]
        rows = [(int(a), _matrix(x, "samples"), _matrix(g, "scores")) for a, (x, g) in items]
        return self._inner.tell(rows)

    def tell_scores(self, scores) -> List[int]:
        """Tells scores computed elsewhere (``{arm: score}`` or ``[(arm, score)]``, for example by
        ``tunelab.score_arm`` in a Ray task). Returns the pruned arm ids."""
        items = scores.items() if isinstance(scores, dict) else scores
        return self._inner.tell_scores([(int(a), float(s)) for a, s in items])

    def tell_scored(self, scored) -> List[int]:
        """Tells ``[(arm, score, rows)]`` as returned by ``score`` / ``score_arm`` where the chains ran; the
        report is then the same as ``tell`` on the samples. Returns the pruned arm ids."""
        return self._inner.tell_scored([(int(a), float(s), int(n)) for a, s, n in scored])

    def plan(self) -> List[Dict[str, Any]]:
        """The planned rounds: ``[{arms, budget, keep}]``."""
        return json.loads(self._inner.plan())

    def report(self) -> Dict[str, Any]:
        """The report so far: config, kernel, plan, rounds (arms, budget, pruned; numbered from 0, as
        ``Ask.round``), per-arm scores, ``arm_params`` (the arm descriptions, when they are plain values or
        dicts), and ``best``: ``{"arm", "score", "params"}`` as in every report (``score``: its last; ``params``:
        its description, a dict, or ``{"arm": description}``), ``None`` before the end; ``best_arm`` is the
        chosen arm's description."""
        r = json.loads(self._inner.report())
        if all(isinstance(a, (dict, int, float, str, bool)) for a in self.arms):
            r["arm_params"] = list(self.arms)
        b = r.get("best")
        if b is not None:
            desc = self.arms[b]
            r["best_arm"] = desc
            scores = r["arms"][b]["scores"]
            r["best"] = {"arm": b, "score": scores[-1] if scores else None,
                         "params": dict(desc) if isinstance(desc, dict) else {"arm": desc}}
        return r

    def state(self) -> Dict[str, Any]:
        """The run so far as a plain dict: ``{"version": 1, "config", "arms", "told"}``, where ``told`` holds
        for each told round its ``[arm, score, rows]`` (score ``None``: +inf; rows ``None``: told as a bare
        score). ``Mamba.from_state(state)`` continues from it (a round asked but not told is asked again)."""
        r = json.loads(self._inner.report())
        seen = [0] * len(self.arms)
        told = []
        for rnd in r["rounds"]:
            row = []
            for a in rnd["arms"]:
                arm = r["arms"][a]
                row.append([a, arm["scores"][seen[a]], arm["samples"][seen[a]]])
                seen[a] += 1
            told.append(row)
        return {"version": 1, "config": dict(self.config), "arms": list(self.arms), "told": told}

    @classmethod
    def from_state(cls, state: Dict[str, Any]) -> "Mamba":
        """The run saved by ``state()``: its rounds are told again with their recorded scores (the same
        decisions and the same report bits)."""
        if not isinstance(state, dict) or state.get("version") != 1:
            raise ConfigError("invalid configuration: not a Mamba state (from Mamba.state(), version 1)")
        m = cls.__new__(cls)
        m._restore(state)
        return m

    def _restore(self, state: Dict[str, Any]) -> None:
        self.arms = list(state["arms"])
        self.config = dict(state["config"])
        self._inner = _core.AskTell(json.dumps(self.config))
        for row in state["told"]:
            if self._inner.ask() is None:
                raise ConfigError("invalid configuration: the Mamba state has more rounds than its plan")
            scores = [(int(a), math.inf if s is None else float(s)) for a, s, _ in row]
            if all(n is not None for _, _, n in row):
                self._inner.tell_scored([(a, s, int(n)) for (a, s), (_, _, n) in zip(scores, row)])
            else:
                self._inner.tell_scores(scores)

    def __getstate__(self) -> Dict[str, Any]:
        return self.state()

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self._restore(state)
