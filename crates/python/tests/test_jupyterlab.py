"""tunelab.widget and tunelab.show in a real JupyterLab, in Debian's Chromium.

Starts JupyterLab on 127.0.0.1 (temporary JUPYTER_* and IPython dirs, a token), opens a notebook that calls
``tunelab.widget(kind="hoag", preset="logreg", run=True)``, ``tunelab.show`` for a native report of each of the
seven kinds (the small configs of tests/e2e/report-cases.json, as the page's own open-report test uses), a
built-in lesson and a lesson file of one's own, runs all its cells from the browser (jupyterlab_e2e.mjs,
playwright-core over /usr/bin/chromium), and checks that
- the widget ran in the notebook's browser on the single-threaded wasm (the page is not cross-origin isolated),
  drew its charts (uPlot canvases with ink, each method's validation loss per iteration) and made the same report,
  bit for bit, as the native core on the config it ran (HOAG is bit-identical across builds,
  tests/e2e/determinism.test.mjs);
- each shown report was opened by the page's own report-opening path (its tab's "Opened from a file" card), ran
  nothing, drew its charts, and its tab's table holds the report file's numbers (tests/e2e/report-tables.mjs, the
  same check as the page's open-report test); the step-size one's GP-UCB KSD per window and the tune one's chosen
  arm are the report's;
- a built-in lesson (lessons/gp-ucb.md, fetched by the page through the kernel) and a lesson file given by its path
  (a copy of docs/lessons/worked-example.md) opened in their panel at step 1.
The server is stopped in ``finally``; every wait is bounded.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import nbformat

import tunelab

HERE = os.path.dirname(os.path.abspath(__file__))
# Wall-clock and machine-dependent keys, left out of the bit-for-bit comparison (as tests/e2e/determinism.test.mjs).
VOLATILE = {"seconds", "wall_seconds", "threads", "scoring_seconds", "worker_seconds"}


def _leaves(v, path=""):
    """A report's leaves as {path: value}, wall-clock keys left out."""
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k not in VOLATILE:
                out.update(_leaves(x, f"{path}.{k}"))
        return out
    if isinstance(v, list):
        out = {}
        for i, x in enumerate(v):
            out.update(_leaves(x, f"{path}[{i}]"))
        return out
    return {path: v}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_up(base: str, token: str, server: subprocess.Popen, seconds: float = 40.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if server.poll() is not None:
            raise AssertionError(f"jupyter lab exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"jupyter lab did not answer within {seconds} s")


NOTEBOOK_CELLS = [
    "import tunelab\n"
    "w = tunelab.widget(kind='hoag', preset='logreg', run=True)\n"
    "w",
    # One report of each kind, run natively: the step-size one shown as tunelab.run returns it, the others from
    # the JSON file each run wrote (as the CLI's --out writes it).
    "import json\n"
    "def merge(base, patch):\n"
    "    for k, v in (patch or {}).items():\n"
    "        if isinstance(v, dict) and isinstance(base.get(k), dict):\n"
    "            merge(base[k], v)\n"
    "        else:\n"
    "            base[k] = v\n"
    "    return base\n"
    "for case in json.load(open('report-cases.json')):\n"
    "    report = tunelab.run(case.get('config') or merge(tunelab.preset(case['kind'], case['preset']), case.get('patch')))\n"
    "    path = case['kind'] + '-report.json'\n"
    "    with open(path, 'w') as f:\n"
    "        f.write(tunelab.to_json(report))\n"
    "    tunelab.show(report if case['kind'] == 'step-size' else path)",
    "tunelab.widget(lesson='gp-ucb')",
    "tunelab.widget(lesson='my-lesson.md')",
]


def test_widget_and_show_draw_in_jupyterlab(tmp_path, root):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in NOTEBOOK_CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(tmp_path / "widget.ipynb"))
    cases = json.loads((root / "tests" / "e2e" / "report-cases.json").read_text())
    (tmp_path / "report-cases.json").write_text(json.dumps(cases))
    lesson_text = (root / "docs" / "lessons" / "worked-example.md").read_text()
    (tmp_path / "my-lesson.md").write_text(lesson_text)
    kinds = [c["kind"] for c in cases]
    reports = {str(1 + i): str(tmp_path / f"{k}-report.json") for i, k in enumerate(kinds)}
    env = dict(os.environ)
    for var, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                     ("IPYTHONDIR", "ipython")]:
        (tmp_path / ".jupyter" / sub).mkdir(parents=True)
        env[var] = str(tmp_path / ".jupyter" / sub)
    env.pop("JUPYTER_PATH", None)
    port, token = _free_port(), "tunelab-e2e-token"
    base = f"http://127.0.0.1:{port}"
    log = open(tmp_path / "jupyter.log", "wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--port-retries=0",
         f"--ServerApp.token={token}", "--ServerApp.ip=127.0.0.1", "--allow-root", "--LabApp.expose_app_in_browser=True",
         f"--ServerApp.root_dir={tmp_path}", "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=str(tmp_path), env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_up(base, token, server)
        node = shutil.which("node") or "node"
        proc = subprocess.run(
            [node, os.path.join(HERE, "jupyterlab_e2e.mjs"), f"{base}/lab/tree/widget.ipynb?token={token}&reset",
             json.dumps(["ran", *["shown"] * len(kinds), "ready", "ready"]), json.dumps(reports)],
            cwd=str(root), capture_output=True, text=True, timeout=150)
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=15)
        log.close()
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "error" not in out, (out.get("error"), out["console"], (tmp_path / "jupyter.log").read_text()[-3000:])
    ran, *shown, lesson, own = out["widgets"]
    print("jupyterlab e2e:", json.dumps([{"state": w["state"].get("tunelabState"), "panel": w["inside"]["panel"],
                                          "height": w["height"], "charts": w["inside"]["charts"]} for w in out["widgets"]]))

    # The widget: a run in the notebook's browser, single-threaded (no cross-origin isolation), charts drawn.
    assert ran["state"]["tunelabState"] == "ran", ran["state"]
    inside = ran["inside"]
    assert inside["panel"] == "hoag" and inside["runState"] == "done" and inside["runs"] == 1, inside["errors"]
    assert inside["flavour"] == "single" and inside["threads"] == 1 and inside["isolated"] is False
    env_report = inside["report"]
    methods = env_report["result"]["methods"]
    assert env_report["kind"] == "hoag" and len(methods) == 8
    drawn = inside["chartData"]["validation"]
    assert [d["name"] for d in drawn] == [m["name"] for m in methods]
    assert [d["y"] for d in drawn] == [[p["validation_loss"] for p in m["trace"]] for m in methods]
    assert sum(len(d["y"]) for d in drawn) > 50
    assert len(inside["charts"]) >= 3 and all(c["ink"] > 500 for c in inside["charts"]), inside["charts"]
    assert ran["height"] > 300  # the iframe follows the page's height
    # The same bits as the native core on the config the widget ran.
    native = _leaves(json.loads(tunelab.to_json(tunelab.run(env_report["config"])["result"])))
    browser = _leaves(env_report["result"])
    assert len(browser) > 500
    differ = [(k, native.get(k), browser.get(k)) for k in sorted(set(native) | set(browser)) if native.get(k) != browser.get(k)]
    assert not differ, differ[:10]

    # The reports shown, one of each kind: opened by the page's report-opening path, nothing ran, charts drawn,
    # the tab's table holds the file's numbers.
    assert [w["inside"]["opened"]["kind"] if w["inside"]["opened"] else None for w in shown] == kinds
    by_kind = {}
    for kind, w in zip(kinds, shown):
        s = w["inside"]
        assert w["state"]["tunelabState"] == "shown", (kind, w["state"])
        assert s["panel"] == tunelab.notebook.PANEL_OF_KIND[kind] and s["runState"] == "done" and s["runs"] == 0, (kind, s["errors"])
        assert s["opened"]["dropped"] == [] and s["opened"]["status"] == "complete", s["opened"]
        assert "Opened from a file" in s["card"] and "shown by tunelab.show" in s["card"] and "Nothing ran in this page" in s["card"], s["card"]
        assert w["tables"] == "ok", (kind, w["tables"])
        assert s["charts"] and all(c["ink"] > 500 for c in s["charts"]), (kind, s["charts"])
        by_kind[kind] = s
    step = by_kind["step-size"]
    report = json.loads((tmp_path / "step-size-report.json").read_text())
    assert step["opened"]["name"] == "report.json" and by_kind["hoag"]["opened"]["name"] == "hoag-report.json"
    gp_shown = step["chartData"]["runs"][0]
    assert gp_shown["ksd"] == report["result"]["gp_ucb"]["ksd"]
    assert [r["name"] for r in step["chartData"]["runs"][1:]] == [r["name"] for r in report["result"]["fixed"]]
    tune_report = json.loads((tmp_path / "tune-report.json").read_text())
    t = by_kind["tune"]
    assert f"#{tune_report['result']['best']['arm']}" in t["message"], t["message"]

    # The lesson: its box, its first step, its panel, ready to run.
    known = tunelab.notebook.lessons()["gp-ucb"]
    l = lesson["inside"]
    assert l["lesson"]["id"] == "gp-ucb" and l["lesson"]["status"] == "ready", l["lesson"]
    assert l["panel"] == known["panel"] == l["lesson"]["panel"] and l["lesson"]["title"] == known["title"]
    assert l["lesson"]["step"].startswith("Step 1 of ") and l["runs"] == 0

    # A lesson file of one's own, given by its path: opened as the page opens a picked file, at step 1.
    o = own["inside"]
    steps = sum(1 for line in lesson_text.splitlines() if line.startswith("## "))
    assert own["state"]["tunelabState"] == "ready", own["state"]
    assert o["lesson"]["source"] == "my-lesson.md" and o["lesson"]["status"] == "ready", o["lesson"]
    assert o["lesson"]["title"] == "A first look at MAMBA: step size and batch size" and o["lesson"]["panel"] == "tune"
    assert o["lesson"]["step"].startswith(f"Step 1 of {steps}") and o["runs"] == 0, o["lesson"]
