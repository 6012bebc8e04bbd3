"""A user's script, type-checked by test_typing.py with ``mypy --strict`` against the wheel's stubs."""

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt
from matplotlib.figure import Figure

import tunelab


def run_chain(step: float, n: int, seed: int) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    rng = np.random.default_rng(seed)
    x = np.sqrt(1.0 - step / 4.0) * rng.normal(size=(n, 2))
    return x, -x


def tune(steps: List[float]) -> Dict[str, Any]:
    m = tunelab.Mamba([{"step": s} for s in steps], budget=90.0, eta=3)
    ask: Optional[tunelab.Mamba.Ask]
    while (ask := m.ask()) is not None:
        pruned: List[int] = m.tell({a: run_chain(m.arms[a]["step"], int(ask.budget), a) for a in ask.arms})
        assert all(isinstance(p, int) for p in pruned)
    state: Dict[str, Any] = m.state()
    again = tunelab.Mamba.from_state(state)
    report: Dict[str, Any] = again.report()
    return report


def stein(x: npt.NDArray[np.float64]) -> float:
    value: float = tunelab.ksd(x, -x, scale="median")
    full: Dict[str, Any] = tunelab.ksd(x, -x, full=True)
    return value + float(full["ksd"])


def experiment() -> Optional[Dict[str, Any]]:
    try:
        report = tunelab.run("tune/gaussian", progress=True, threads=1)
    except tunelab.Interrupted as e:
        return e.report
    except tunelab.ConfigError as e:
        raise ValueError(str(e)) from e
    frame = tunelab.to_frame(report, "arms")
    table: Any = report.frame("rounds")
    html: str = report._repr_html_()
    best: Optional[Dict[str, Any]] = report.best
    shown: Figure = report.plot()
    print(table, html, best, shown)
    print(frame, tunelab.to_json(report)[:10])
    fig: Figure = tunelab.plot.scores(report, labels=["a", "b"])
    fig.savefig("scores.pdf")
    figs: List[Figure] = [tunelab.plot.traces(report, dims=[0]), tunelab.plot.regret(report, log=True),
                          tunelab.plot.tvo(report), tunelab.plot.hoag(report, x="cost"),
                          tunelab.plot.lr_schedule(report), tunelab.plot.step_size(report),
                          tunelab.plot.report(report)]
    print(len(figs))
    return report


if __name__ == "__main__":
    print(tune([0.1, 0.5, 1.0]), stein(np.ones((3, 2))), experiment())
