"""tunelab.run over the one experiment contract: presets, progress events, the CLI's result, errors,
KeyboardInterrupt stopping a run (and raised with the stopped report)."""

import _thread
import json
import signal
import subprocess
import threading

import numpy as np
import pytest

import tunelab


def strip_times(v):
    """A report without its wall-clock fields (not reproducible), sample matrices as the CLI's flat lists."""
    if isinstance(v, np.ndarray):
        return v.ravel().tolist()
    if isinstance(v, dict):
        return {k: strip_times(x) for k, x in v.items() if "seconds" not in k and k != "threads"}
    if isinstance(v, list):
        return [strip_times(x) for x in v]
    return v


def test_presets_cover_every_kind():
    p = tunelab.presets()
    assert set(p) == {"tune", "compare", "bandit", "hoag", "lr-schedule", "step-size", "tvo"}
    assert "gaussian" in p["tune"]
    cfg = tunelab.preset("tune", "gaussian")
    assert cfg["kind"] == "tune"
    assert tunelab.check(cfg)["unit"] == "arm-chunks"


def test_run_equals_the_cli_run(cli, tmp_path):
    cfg = tunelab.preset("tune", "gaussian")
    events = []
    report = tunelab.run(cfg, progress=events.append)
    assert report["status"] == "complete"
    assert events[0]["type"] == "started" and events[-1]["type"] == "finished"
    progress = [e for e in events if e["type"] == "progress"]
    assert progress and progress[-1]["done"] == progress[-1]["total"]
    assert all(a["done"] <= b["done"] for a, b in zip(progress, progress[1:]))
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(cfg))
    out = tmp_path / "report.json"
    p = subprocess.run([cli, "run", "--config", str(path), "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    want = json.loads(out.read_text())
    assert strip_times(report) == strip_times(want)
    # the same config as JSON text, a file, and KIND/PRESET
    for form in (json.dumps(cfg), str(path), "tune/gaussian"):
        assert strip_times(tunelab.run(form)["result"]) == strip_times(want["result"])


def test_run_seeds_overrides_the_seed():
    a, b = tunelab.run_seeds("tune/gaussian", [1, 2])
    assert a["config"]["seed"] == 1 and b["config"]["seed"] == 2
    assert strip_times(a["result"]["arms"]) != strip_times(b["result"]["arms"])


def test_config_errors_carry_the_cli_message(cli, tmp_path):
    bad = {"kind": "tune-me"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    p = subprocess.run([cli, "run", "--config", str(path)], capture_output=True, text=True)
    assert p.returncode == 1
    with pytest.raises(tunelab.ConfigError) as e:
        tunelab.run(bad)
    # the CLI names the file after the core's "invalid configuration: "
    cli_message = str(e.value).replace("invalid configuration: ", f"invalid configuration: {path}: ", 1)
    assert p.stderr.strip() == f"error: {cli_message}"
    assert "unknown experiment kind 'tune-me'" in str(e.value)
    with pytest.raises(tunelab.ConfigError, match="unknown"):
        tunelab.preset("tune", "no-such-preset")
    cfg = tunelab.preset("tune", "gaussian")
    cfg["tuner"]["eta"] = 1
    with pytest.raises(tunelab.ConfigError):
        tunelab.run(cfg)


def test_progress_exception_stops_the_run_and_is_raised():
    def boom(event):
        if event["type"] == "progress":
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        tunelab.run("tune/gaussian", progress=boom)


def long_config():
    cfg = tunelab.preset("tune", "gaussian")
    # about 10 s if the interrupt were missed (the test then fails on the status, in bounded time)
    cfg["budget"] = {"iterations": 2e7}
    return cfg


def test_keyboard_interrupt_stops_a_run_and_raises_with_its_report():
    # Python's own Ctrl-C handler (another library, Ray for one, may have replaced it in this process)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        check_interrupt()
    finally:
        signal.signal(signal.SIGINT, previous)


def check_interrupt():
    seen = []

    def progress(event):
        seen.append(event)
        # Ctrl-C as the interpreter sees it, once the run is under way
        if event["type"] == "progress" and len(seen) == 3:
            threading.Timer(0.05, _thread.interrupt_main).start()

    with pytest.raises(KeyboardInterrupt) as e:
        tunelab.run(long_config(), progress=progress, threads=1)
    assert isinstance(e.value, tunelab.Interrupted)
    report = e.value.report
    assert report["status"] == "stopped"
    assert report["result"] is None and report["reached"]
    assert report["compute"]["done"] < report["compute"]["total"]
    assert seen[-1] == {"type": "finished", "status": "stopped", "seconds": seen[-1]["seconds"]}
