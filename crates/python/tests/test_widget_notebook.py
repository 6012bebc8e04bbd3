"""tunelab.widget / tunelab.show without a browser: the bundle in the wheel, the arguments checked before anything
is shown, the data files the kernel serves to the page, and (nbclient) a notebook whose outputs are widget views.
The browser side (the widget draws, the report's numbers in its charts) is test_jupyterlab.py."""

import json
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

import tunelab
from tunelab import notebook

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def test_the_wheel_ships_the_whole_front_end():
    d = pathlib.Path(notebook.__file__).parent / "_widget"
    manifest = json.loads((d / "manifest.json").read_text())
    wasm = (d / "tunelab_bg.wasm").read_bytes()
    assert wasm[:4] == b"\0asm" and len(wasm) == manifest["bytes"]["tunelab_bg.wasm"]
    app = (d / "app.js").read_text()
    worker = (d / "worker.js").read_text()
    # The page's panels, the worker's wasm glue and uPlot are inside; nothing is loaded from elsewhere.
    assert "__tunelab" in app and "tunelab:panels-ready" in app and "==== uplot " in (d / "LICENSES.txt").read_text()
    assert "tunelab_bg.wasm" in worker and "tunelabWidget" in worker
    for code in (app, worker, (d / "widget.js").read_text()):
        assert "https://cdn" not in code and "unpkg.com" not in code and "jsdelivr" not in code
    page = (d / "page.html").read_text()
    assert 'id="panel-tune"' in page and "<script" not in page and "<!--tunelab:scripts-->" in page
    assert set(manifest["files"]) >= {"data/digits8x8.csv", "data/wine.csv", "data/breast_cancer.csv", "data/diabetes.csv"}
    assert set(notebook.lessons()) >= {"mamba", "gp-ucb", "d-ttts", "hoag", "lr-schedule"}
    assert "uplot" in (d / "LICENSES.txt").read_text().lower()


def test_widget_arguments_are_checked_in_python():
    with pytest.raises(ValueError, match="did you mean 'bandit'"):
        tunelab.widget(kind="bandits")
    with pytest.raises(ValueError, match="did you mean 'sgld-step'"):
        tunelab.widget(kind="step-size", preset="sgld-stp")
    with pytest.raises(ValueError, match="did you mean 'mamba'"):
        tunelab.widget(lesson="mambo")
    with pytest.raises(tunelab.ConfigError, match="roundz"):
        tunelab.widget(config={"kind": "bandit", "roundz": 3})
    with pytest.raises(tunelab.ConfigError, match="not 'hoag'"):
        tunelab.widget(kind="hoag", config=tunelab.preset("step-size", "sgld-step"))
    with pytest.raises(ValueError, match="a lesson brings its own panel"):
        tunelab.widget(lesson="mamba", kind="tune")
    with pytest.raises(ValueError, match="not a tunelab report"):
        tunelab.show({"kind": "bandit"})
    with pytest.raises(ValueError, match="has no panel"):
        tunelab.show({"kind": "tunes", "config": {}, "result": None})


def test_widget_hash_and_payload():
    w = tunelab.widget(kind="bandit", preset=tunelab.presets()["bandit"][0], run=True)
    assert "embed=1" in w.hash and "panel=bandit" in w.hash
    assert w.payload == {"preset": tunelab.presets()["bandit"][0], "panel": "bandit", "run": True}
    # A config is checked by the core first and sent with its defaults filled in.
    c = tunelab.widget(config=tunelab.preset("step-size", "sgld-step"))
    assert c.payload["config"] == {**tunelab.check(tunelab.preset("step-size", "sgld-step"))["config"], "kind": "step-size"}
    assert c.payload["panel"] == "step-size" and c.payload["run"] is False
    # A comparison's preset is a config of the tuning panel (its compare mode).
    name = tunelab.presets()["compare"][0]
    cmp = tunelab.widget(kind="compare", preset=name)
    assert cmp.payload["config"]["kind"] == "compare" and cmp.payload["panel"] == "tune"
    lesson = tunelab.widget(lesson="hoag")
    assert "lesson=hoag" in lesson.hash and lesson.payload == {}
    assert len(w._wasm) > 100_000 and w._wasm[:4] == b"\0asm"


def test_report_payload_from_a_run(tmp_path):
    report = tunelab.run(tunelab.preset("step-size", "sgld-step"))
    w = tunelab.widget(report=report)
    # The page opens the report's JSON text (the core's reader parses it in the worker, as for a file).
    shown = w.payload["report"]
    assert shown["kind"] == "step-size" and "panel=step-size" in w.hash and shown["name"] == "report.json"
    assert shown["text"] == tunelab.to_json(report)
    # The same report from the CLI's JSON file (its text as written, its name on the page's card) and from its text.
    path = tmp_path / "r.json"
    path.write_text(tunelab.to_json(report))
    assert tunelab.widget(report=str(path)).payload == {"report": {**shown, "name": "r.json"}}
    assert tunelab.widget(report=path).payload == {"report": {**shown, "name": "r.json"}}
    assert tunelab.widget(report=path.read_text()).payload == w.payload
    (tmp_path / "cut.json").write_text(path.read_text()[:100])
    with pytest.raises(ValueError, match="cut.json is not valid JSON"):
        tunelab.show(str(tmp_path / "cut.json"))


def test_lesson_file_payload(tmp_path, root):
    example = root / "docs" / "lessons" / "worked-example.md"
    own = tmp_path / "my-lesson.md"
    own.write_text(example.read_text())
    want = {"lesson": {"name": "my-lesson.md", "text": example.read_text()}}
    # A path (string or PathLike) is read here and opened in the page as a picked file is; its text works too.
    for given in (str(own), own):
        w = tunelab.widget(lesson=given)
        assert w.payload == want and w.hash == "embed=1", w.hash
    assert tunelab.widget(lesson=example.read_text()).payload == {"lesson": {"name": "lesson text", "text": example.read_text()}}
    with pytest.raises(ValueError, match="cannot read the lesson file .*missing.md"):
        tunelab.widget(lesson=str(tmp_path / "missing.md"))
    with pytest.raises(ValueError, match="no built-in lesson 'mambo' and no such file"):
        tunelab.widget(lesson="mambo")


def test_the_kernel_serves_listed_data_files_only():
    w = tunelab.widget(kind="bandit")
    sent = []
    w.send = lambda content, buffers=None: sent.append((content, buffers))
    w._on_msg(w, {"type": "file", "id": 7, "path": "data/wine.csv"}, [])
    w._on_msg(w, {"type": "file", "id": 8, "path": "../__init__.py"}, [])
    w._on_msg(w, {"type": "file", "id": 9, "path": "data/../../__init__.py"}, [])
    (c7, b7), (c8, b8), (c9, b9) = sent
    repo_wine = pathlib.Path(__file__).resolve().parents[3] / "data" / "wine.csv"
    assert c7 == {"type": "file", "id": 7, "ok": True} and b7 == [repo_wine.read_bytes()]
    assert c8["ok"] is False and b8 is None and c9["ok"] is False and b9 is None


def test_nbclient_outputs_are_widget_views(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import tunelab\ntunelab.widget(kind='step-size')"),
        nbformat.v4.new_code_cell("tunelab.show(tunelab.run(tunelab.preset('step-size', 'sgld-step')))"),
        nbformat.v4.new_code_cell("tunelab.widget(lesson='mamba')"),
    ]
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    views = []
    for cell in nb.cells:
        outs = [o for o in cell.outputs if o.get("output_type") in ("display_data", "execute_result")]
        assert len(outs) == 1, cell.outputs  # show() displays once and returns nothing
        views.append(outs[0]["data"][WIDGET_MIME]["model_id"])
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    models = [state[v]["state"] for v in views]
    assert "panel=step-size" in models[0]["hash"]
    assert models[1]["payload"]["report"]["kind"] == "step-size"
    assert "lesson=mamba" in models[2]["hash"]
    assert all("render" in m["_esm"] for m in models)
