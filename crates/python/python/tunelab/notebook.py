"""The playground in a notebook: ``tunelab.widget(...)`` and ``tunelab.show(report)`` (needs the ``notebook`` extra:
``pip install 'tunelab[notebook]'``, i.e. anywidget).

The widget is the page itself in embed mode, in an iframe inside the cell's output: a kind's panel (its settings,
Run, live charts, reading), a built-in lesson or a lesson file of one's own, or a report of any kind opened as the
page opens a report file (its tab's charts, tables and reading; nothing runs). Runs happen in the
notebook's browser, in the same single-threaded WebAssembly as the page (a notebook page is not cross-origin
isolated, so no threads); the kernel only sends the bundle and the data files a config reads. The bundle (the
page's modules, its worker, its styles and the wasm, built by ``scripts/dev/build-widget.mjs``) ships in the
wheel under ``tunelab/_widget/``: nothing is fetched from the network.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Union

from . import _core
from ._errors import ConfigError

_DIR = Path(__file__).parent / "_widget"

#: The panel that shows each experiment kind (the core's registry: a comparison is the tuning panel's compare
#: mode).
PANEL_OF_KIND: Dict[str, str] = {k["name"]: k["panel"] for k in json.loads(_core.kinds())}
#: The tuning panel's settings groups: a widget shows them all (an embed folds some by default).
_ALL_CONTROLS = "presets,data,model,arms,tuner,run"


def _nearest(word: str, names: Any) -> str:
    near = difflib.get_close_matches(word, list(names), n=1)
    return f"; did you mean {near[0]!r}?" if near else ""


@functools.lru_cache(maxsize=1)
def _bundle() -> Dict[str, Any]:
    """The built front end (read once): the anywidget module, the page, its worker, the wasm and the manifest."""
    try:
        manifest = json.loads((_DIR / "manifest.json").read_text(encoding="utf-8"))
        return {
            "manifest": manifest,
            "esm": (_DIR / "widget.js").read_text(encoding="utf-8"),
            "page": (_DIR / "page.html").read_text(encoding="utf-8"),
            "app": (_DIR / "app.js").read_text(encoding="utf-8"),
            "worker": (_DIR / "worker.js").read_text(encoding="utf-8"),
            "wasm": (_DIR / "tunelab_bg.wasm").read_bytes(),
        }
    except FileNotFoundError as e:
        raise RuntimeError(
            "this tunelab build has no widget bundle (tunelab/_widget/): build it with "
            "`node scripts/dev/build-widget.mjs` before the wheel (scripts/dev/test-python.sh does)") from e


def lessons() -> Dict[str, Dict[str, str]]:
    """The built-in lessons the widget can show: ``{id: {panel, title}}``."""
    return dict(_bundle()["manifest"]["lessons"])


def _file(path: Any) -> Optional[bytes]:
    """A data file of the bundle (``data/wine.csv``), or None for any path the bundle does not list."""
    if not isinstance(path, str) or path not in _bundle()["manifest"]["files"]:
        return None
    return (_DIR / "files" / path).read_bytes()


@functools.lru_cache(maxsize=1)
def _widget_class() -> Any:
    try:
        import anywidget
        import traitlets
    except ImportError as e:
        raise ImportError("tunelab.widget and tunelab.show need anywidget: pip install 'tunelab[notebook]'") from e
    b = _bundle()

    class Playground(anywidget.AnyWidget):  # type: ignore[misc]
        """A tunelab panel, lesson or report in a notebook cell (see ``tunelab.widget``)."""

        _esm = b["esm"]
        _page = traitlets.Unicode(b["page"]).tag(sync=True)
        _app = traitlets.Unicode(b["app"]).tag(sync=True)
        _worker = traitlets.Unicode(b["worker"]).tag(sync=True)
        # The wasm as one binary buffer of the initial state (a few MB: milliseconds), not inside _esm: anywidget
        # gives a model 2 s to initialise.
        _wasm = traitlets.Bytes(b["wasm"]).tag(sync=True)
        #: the page's URL hash: embed mode, the panel, a lesson
        hash = traitlets.Unicode("").tag(sync=True)
        #: what the page applies once its panels exist: {panel, config | preset, run}, {report: {kind, name, text}}
        #: or {lesson: {name, text}}
        payload = traitlets.Dict().tag(sync=True)
        #: the page's state as the front end reports it: {state: loading | starting | ready | ran | shown |
        #: failed | error, panel, runState, runs, error}
        status = traitlets.Dict().tag(sync=True)
        title = traitlets.Unicode("tunelab playground").tag(sync=True)

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.on_msg(self._on_msg)

        def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
            if not isinstance(content, dict) or content.get("type") != "file":
                return
            data = _file(content.get("path"))
            self.send({"type": "file", "id": content.get("id"), "ok": data is not None},
                      [data] if data is not None else None)

    return Playground


def _hash(**params: str) -> str:
    from urllib.parse import urlencode
    return urlencode({"embed": "1", **{k: v for k, v in params.items() if v}})


def _report_text(report: Any) -> Dict[str, str]:
    """A report envelope as the page opens it: ``{kind, name, text}``, its JSON text (a file's text as written) and a
    name for the page's "Opened from a file" card. A report is a dict (numpy sample matrices allowed), JSON text, a
    file path, or an object with ``to_json()`` / ``to_dict()``. Only the envelope's shape is checked here; the page
    parses the whole report strictly (the core's report reader, as for a file opened in the page)."""
    from . import to_json
    name = "report.json"
    if hasattr(report, "to_json") and not isinstance(report, (str, bytes, Mapping)):
        text = report.to_json()
    elif hasattr(report, "to_dict") and not isinstance(report, Mapping):
        text = to_json(report.to_dict())
    elif isinstance(report, Mapping):
        text = to_json(dict(report))
    elif isinstance(report, (str, os.PathLike)):
        text = os.fspath(report)
        if not text.lstrip().startswith("{"):
            name = os.path.basename(text)
            with open(text, encoding="utf-8") as f:
                text = f.read()
    else:
        raise TypeError(f"tunelab.show: a report is a dict, JSON text or a file path, not {type(report).__name__}")
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ValueError(f"tunelab.show: {name} is not valid JSON (damaged or cut short?): {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str) or "config" not in data or "result" not in data:
        raise ValueError("tunelab.show: not a tunelab report (a JSON object with kind, status, config, compute and "
                         "result, as the CLI's --out, tunelab.run and the page's export write)")
    if data["kind"] not in PANEL_OF_KIND:
        raise ValueError(f"tunelab.show: a report of kind {data['kind']!r} has no panel{_nearest(data['kind'], PANEL_OF_KIND)}")
    return {"kind": data["kind"], "name": name, "text": text}


def _lesson_source(lesson: Union[str, "os.PathLike[str]"]) -> Optional[Dict[str, str]]:
    """A lesson file of one's own as the page opens a picked file, ``{name, text}``: a path (``os.PathLike``, or a
    string naming a file or ending in ``.md``) or the lesson's Markdown text itself (a string with a line break).
    None for a string that is neither (a built-in lesson's id)."""
    if isinstance(lesson, os.PathLike) or (isinstance(lesson, str) and "\n" not in lesson
                                            and (lesson.endswith(".md") or os.path.isfile(lesson))):
        path = os.fspath(lesson)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise ValueError(f"tunelab.widget: cannot read the lesson file {path}: {e.strerror or e}") from None
        return {"name": os.path.basename(path), "text": text}
    if isinstance(lesson, str) and "\n" in lesson:
        return {"name": "lesson text", "text": lesson}
    return None


def widget(kind: Optional[str] = None, config: Union[Dict[str, Any], str, None] = None, preset: Optional[str] = None,
           lesson: Union[str, "os.PathLike[str]", None] = None, *, report: Any = None, run: bool = False) -> Any:
    """A tunelab panel in a notebook cell, running in the notebook's browser (display it: make it a cell's last
    expression, or ``IPython.display.display`` it).

    - ``widget()`` / ``widget(kind="bandit")``: the kind's panel with its defaults (kinds: tune, compare, bandit,
      hoag, lr-schedule, step-size, tvo; a comparison is the tuning panel's compare mode);
    - ``widget(kind, preset=NAME)``: a core preset (``tunelab.presets()``);
    - ``widget(config=CONFIG)``: a config (dict, JSON text, file or ``KIND/PRESET``), checked here first, so a
      wrong field raises ``ConfigError`` with the core's message before anything is shown;
    - ``widget(lesson=ID)``: a built-in lesson (``tunelab.notebook.lessons()``) with its steps;
    - ``widget(lesson=FILE)``: a lesson file of one's own (a path; or the lesson's Markdown text), opened as the
      page opens a picked lesson file: the core checks it in the notebook's browser, and a broken file shows one
      ``file:line`` error in the widget and runs nothing;
    - ``widget(report=REPORT)``: as ``show(report)``, without displaying it.
    ``run=True`` starts the run once the page is ready (settings and preset as given).
    """
    cls = _widget_class()
    if report is not None:
        if any(x is not None for x in (kind, config, preset, lesson)) or run:
            raise ValueError("tunelab.widget: a report is shown as it is: give no kind, config, preset, lesson or run with it")
        shown = _report_text(report)
        return cls(hash=_hash(panel=PANEL_OF_KIND[shown["kind"]], controls="run"), payload={"report": shown},
                   title=f"tunelab report ({shown['kind']})")
    if lesson is not None:
        if any(x is not None for x in (kind, config, preset)):
            raise ValueError("tunelab.widget: a lesson brings its own panel and settings: give no kind, config or preset with it")
        known = lessons()
        own = None if lesson in known else _lesson_source(lesson)
        if own is not None:
            return cls(hash=_hash(), payload={"lesson": own}, title=f"tunelab lesson: {own['name']}")
        if lesson not in known:
            raise ValueError(f"tunelab.widget: no built-in lesson {lesson!r} and no such file (lessons: {', '.join(known)})"
                             f"{_nearest(str(lesson), known)}")
        return cls(hash=_hash(lesson=lesson), payload={}, title=f"tunelab lesson: {known[lesson]['title']}")
    payload: Dict[str, Any] = {}
    if config is not None:
        if preset is not None:
            raise ValueError("tunelab.widget: give a config or a preset, not both")
        from . import check
        checked = check(config)
        if kind is not None and kind != checked["kind"]:
            raise ConfigError(f"invalid configuration: the config is of kind {checked['kind']!r}, not {kind!r}")
        kind = checked["kind"]
        payload["config"] = {**checked["config"], "kind": kind}
    kind = kind or "tune"
    if kind not in PANEL_OF_KIND:
        raise ValueError(f"tunelab.widget: unknown kind {kind!r} (kinds: {', '.join(PANEL_OF_KIND)}){_nearest(kind, PANEL_OF_KIND)}")
    if preset is not None:
        from . import presets, preset as preset_config
        names = presets().get(kind, [])
        if preset not in names:
            raise ValueError(f"tunelab.widget: no {kind} preset {preset!r} (presets: {', '.join(names)}){_nearest(preset, names)}")
        # The panel loads its own kind's presets by name (its Preset menu shows it); a comparison's is a config.
        payload["preset" if kind != "compare" else "config"] = preset if kind != "compare" else preset_config(kind, preset)
    panel = PANEL_OF_KIND[kind]
    payload.update(panel=panel, run=bool(run))
    return cls(hash=_hash(panel=panel, controls=_ALL_CONTROLS), payload=payload, title=f"tunelab playground: {kind}")


def show(report: Any) -> None:
    """Shows a report of any kind (a ``tunelab.run`` result, the CLI's ``--out`` JSON file or text, a page export)
    in its kind's panel with the page's charts, table and reading, in the notebook's output, opened as the page
    opens a report file (parsed strictly; a report the page cannot read shows its reason). Nothing runs; "Run again
    here" loads the report's config, and Run runs it in the browser. Returns nothing (so that a cell ending in ``show(r)`` shows
    it once); ``widget(report=r)`` gives the widget itself."""
    from IPython.display import display
    display(widget(report=report))
