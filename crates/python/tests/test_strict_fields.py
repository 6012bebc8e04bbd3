"""Strict configs in Python: every field of every kind's config, misspelt by one letter, is refused by
``tunelab.check`` and ``tunelab.run`` with a ``ValueError`` (``tunelab.ConfigError``) naming its JSON path and the
right name. The fields are not listed by hand: they are every key, at every depth, of every preset
(``tunelab.presets()`` / ``tunelab.preset``). The CLI's version is crates/cli/tests/strict_fields.rs."""

import copy
import re

import pytest

import tunelab


def _paths(v, path=()):
    """The path of every object key at every depth (keys are str, list indices int)."""
    if isinstance(v, dict):
        for k, child in v.items():
            yield path + (k,)
            yield from _paths(child, path + (k,))
    elif isinstance(v, list):
        for i, child in enumerate(v):
            yield from _paths(child, path + (i,))


def _dotted(path):
    s = ""
    for p in path:
        s += f"[{p}]" if isinstance(p, int) else (p if not s else "." + p)
    return s


def _misspelt(key, siblings):
    """``key`` with its middle letter dropped (three letters or more) or doubled; None if that is a sibling."""
    mid = len(key) // 2
    typo = key[:mid] + key[mid + 1:] if len(key) >= 3 else key[:mid] + key[mid] + key[mid:]
    return None if typo in siblings else typo


def _cases():
    """(kind/name, misspelt config, shown path, right key): one per (kind, path)."""
    seen = set()
    for kind, names in tunelab.presets().items():
        for name in names:
            cfg = tunelab.preset(kind, name)
            for path in _paths(cfg):
                if (kind, path) in seen:
                    continue
                seen.add((kind, path))
                bad = copy.deepcopy(cfg)
                obj = bad
                for p in path[:-1]:
                    obj = obj[p]
                key = path[-1]
                typo = _misspelt(key, obj)
                if typo is None:
                    continue
                # keep the key's place in the object (order does not matter to the core, but to a reader)
                items = [(typo if k == key else k, v) for k, v in obj.items()]
                obj.clear()
                obj.update(items)
                yield f"{kind}/{name}", bad, _dotted(path[:-1] + (typo,)), key


def test_every_field_of_every_kind_misspelt_is_refused_with_its_path_and_name():
    cases = list(_cases())
    kinds = {c[0].split("/")[0] for c in cases}
    assert len(kinds) >= 7, kinds
    assert len(cases) > 100, len(cases)
    failures = []
    for where, bad, shown, key in cases:
        try:
            tunelab.check(bad)
        except ValueError as e:
            msg = str(e)
            if not (isinstance(e, tunelab.ConfigError) and f"`{shown}`" in msg and f"did you mean `{key}`?" in msg):
                failures.append(f"{where}: `{shown}` (for `{key}`): {type(e).__name__}: {msg}")
        else:
            failures.append(f"{where}: `{shown}` (for `{key}`) accepted")
    print(f"{len(cases)} misspelt fields over {len(kinds)} kinds refused by tunelab.check")
    assert not failures, f"{len(failures)} of {len(cases)}:\n" + "\n".join(failures)


def test_run_refuses_a_misspelt_field_of_every_kind_before_running():
    # run() goes through the same parse; one field per kind (a nested one where the kind has one) shows it.
    pick = {}
    for where, bad, shown, key in _cases():
        kind = where.split("/")[0]
        if kind not in pick or ("." in shown and "." not in pick[kind][1]):
            pick[kind] = (bad, shown, key)
    assert len(pick) >= 7, pick.keys()
    for kind, (bad, shown, key) in pick.items():
        with pytest.raises(ValueError, match=re.escape(f"`{shown}`") + r".*did you mean `" + re.escape(key) + "`"):
            tunelab.run(bad)
