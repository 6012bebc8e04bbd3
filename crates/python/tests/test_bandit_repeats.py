"""The repeats of a bandit comparison as separate runs (``with_repeats``) merged into the one-machine report."""

import pytest

import tunelab
from test_run import strip_times


def small():
    cfg = tunelab.preset("bandit", "beta-reservoir")
    cfg.update(rounds=200, repeats=5, checkpoints=10)
    return cfg


def test_parts_merge_into_the_full_run_bit_for_bit():
    cfg = small()
    full = tunelab.run(cfg)
    parts = [tunelab.run(tunelab.with_repeats(cfg, lo, hi)) for lo, hi in [(3, 5), (0, 1), (1, 3)]]
    assert [r["repeat"] for r in parts[1]["result"]["algorithms"][0]["recommended"]] == [0]
    assert "per_repeat" in parts[0]["result"]["algorithms"][0]
    merged = tunelab.merge_bandit(parts)
    assert strip_times(merged) == strip_times(full)
    assert "repeat_range" not in merged["config"]
    # floats equal to the last bit (== on Python floats), not only close
    for a, b in zip(merged["result"]["algorithms"], full["result"]["algorithms"]):
        assert a["simple_regret"]["mean"] == b["simple_regret"]["mean"]


def test_bad_ranges_and_parts_are_config_errors():
    cfg = small()
    with pytest.raises(tunelab.ConfigError, match="repeat_range"):
        tunelab.run(tunelab.with_repeats(cfg, 4, 9))
    a = tunelab.run(tunelab.with_repeats(cfg, 0, 2))
    with pytest.raises(tunelab.ConfigError, match="cover repeats 0..2 of 5"):
        tunelab.merge_bandit([a])
    with pytest.raises(tunelab.ConfigError, match="bandit"):
        tunelab.with_repeats(tunelab.preset("tune", "gaussian"), 0, 1)
