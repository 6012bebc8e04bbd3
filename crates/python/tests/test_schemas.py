"""The JSON Schemas generated from the Rust types (`tunelab schema`, schemas/) with a standard validator
(`jsonschema`, draft 2020-12): every preset, the example config and every committed report validate; a config
with an unknown field or a wrong type is refused by the schema and by the core alike; the wheel's copy
(tunelab/schemas/) is the repository's."""

import copy
import json
import pathlib
import subprocess

import pytest

jsonschema = pytest.importorskip("jsonschema")
referencing = pytest.importorskip("referencing")

from conftest import ROOT  # noqa: E402

SCHEMAS = ROOT / "schemas"
PACKAGE_SCHEMAS = ROOT / "crates/python/python/tunelab/schemas"


def _registry():
    docs = {p.name: json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")}
    reg = referencing.Registry().with_resources(
        [(name, referencing.Resource.from_contents(doc)) for name, doc in docs.items()]
    )
    return docs, reg


def _validator(name):
    docs, reg = _registry()
    jsonschema.Draft202012Validator.check_schema(docs[name])
    return jsonschema.Draft202012Validator(docs[name], registry=reg)


def _presets(cli):
    out = subprocess.run([cli, "presets"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.strip():
            kind, names = line.split(None, 1)
            for name in names.split(", "):
                yield kind, name.strip()


def _preset(cli, kind, name):
    out = subprocess.run([cli, "presets", "--show", f"{kind}/{name}"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_every_schema_is_valid_and_the_wheel_ships_the_same():
    names = sorted(p.name for p in SCHEMAS.glob("*.schema.json"))
    assert len(names) == 10, names
    for name in names:
        jsonschema.Draft202012Validator.check_schema(json.loads((SCHEMAS / name).read_text()))
        assert (PACKAGE_SCHEMAS / name).read_text() == (SCHEMAS / name).read_text(), name


def test_every_preset_validates_against_its_schema(cli):
    seen = 0
    any_kind = _validator("config.schema.json")
    for kind, name in _presets(cli):
        cfg = _preset(cli, kind, name)
        errors = list(_validator(f"{kind}.schema.json").iter_errors(cfg))
        assert not errors, (kind, name, [e.message for e in errors][:3])
        assert not list(any_kind.iter_errors(cfg)), (kind, name)
        # With the editor's "$schema" key too.
        assert not list(_validator(f"{kind}.schema.json").iter_errors({"$schema": f"{kind}.schema.json", **cfg}))
        seen += 1
    assert seen >= 40


def test_the_example_config_names_its_schema_and_validates():
    cfg = json.loads((ROOT / "scripts/reproduce/mamba/pmf-paper.json").read_text())
    assert cfg["$schema"] == "../../../schemas/compare.schema.json"
    assert (ROOT / "scripts/reproduce/mamba" / cfg["$schema"]).resolve() == (SCHEMAS / "compare.schema.json")
    assert not list(_validator("compare.schema.json").iter_errors(cfg))


def test_committed_reports_validate_against_the_envelope():
    v = _validator("report.schema.json")
    # Every committed report except the slimmed copies that scripts/reproduce/lr-schedule/slim.py and
    # scripts/reproduce/bandit/slim.py keep for doc_tables.py: they drop `compute` (and the traces, curves and charts),
    # so they are data for the tables, not reports to open.
    slim_dirs = [ROOT / "docs/results/lr-schedule", ROOT / "docs/results/bandit/gpucb",
                 ROOT / "docs/results/bandit/gpucb-matern", ROOT / "docs/results/step-size"]
    # A report is a JSON object with the envelope's kind, status and config (docs/time-estimates/ holds lists of
    # measured runs, not reports).
    reports = []
    for p in (ROOT / "docs").rglob("*.json"):
        if any(d in p.parents for d in slim_dirs) or '"status"' not in p.read_text()[:400]:
            continue
        doc = json.loads(p.read_text())
        if isinstance(doc, dict) and {"kind", "status", "config"} <= doc.keys():
            reports.append((p, doc))
    assert len(reports) >= 50
    for p, doc in reports:
        errors = list(v.iter_errors(doc))
        assert not errors, (str(p), [e.message[:200] for e in errors][:2])


def test_lesson_front_matter_validates():
    v = _validator("lesson-front-matter.schema.json")
    files = sorted((ROOT / "lessons").glob("*.md")) + [ROOT / "docs/lessons/worked-example.md"]
    for f in files:
        lines = f.read_text().split("\n")
        end = lines[1:].index("---") + 1
        doc = {}
        for line in lines[1:end]:
            if line.strip() and not line.startswith("#"):
                k, val = line.split(":", 1)
                doc[k.strip()] = float(val) if k.strip() == "minutes" else val.strip()
        assert not list(v.iter_errors(doc)), f
    assert list(v.iter_errors({"title": "t", "kind": "tune", "minuts": 5}))
    assert list(v.iter_errors({"title": "t", "kind": "tunes"}))


BAD = [
    ("unknown top-level field", lambda c: c.__setitem__("etta", 3), "etta"),
    ("unknown nested field", lambda c: c["tuner"].__setitem__("etta", 3), "tuner.etta"),
    ("unknown field in a flattened part", lambda c: c["data"].__setitem__("lable", "y"), "data.lable"),
    ("wrong type", lambda c: c.__setitem__("seed", "1"), "seed"),
    ("$schema not at the top", lambda c: c["data"].__setitem__("$schema", "x"), "data.$schema"),
]


@pytest.mark.parametrize("what,spoil,path", BAD, ids=[b[0] for b in BAD])
def test_a_bad_config_is_refused_by_the_schema_and_the_core(cli, what, spoil, path):
    cfg = _preset(cli, "tune", "demo")
    spoil(cfg)
    assert list(_validator("tune.schema.json").iter_errors(cfg)), what
    import tunelab

    with pytest.raises(tunelab.ConfigError) as e:
        tunelab.check(cfg)
    assert f"`{path}`" in str(e.value), str(e.value)


def test_a_good_config_with_its_schema_key_is_accepted_by_the_core(cli):
    import tunelab

    cfg = {"$schema": "tune.schema.json", **_preset(cli, "tune", "demo")}
    assert not list(_validator("tune.schema.json").iter_errors(cfg))
    tunelab.check(cfg)
