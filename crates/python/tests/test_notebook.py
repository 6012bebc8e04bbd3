"""Figures and reports in a notebook: a notebook executed by nbclient on an IPython kernel (ipykernel) of this
venv shows an ``image/png`` for a cell that ends with each plot kind's figure, and the report's HTML summary
for a cell that ends with a report. Neither pyplot nor ``%matplotlib inline`` is used: the figures show
themselves."""

import textwrap

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

from test_plot import BANDIT, HOAG, LR, STEP, TUNE, TVO  # noqa: E402

SETUP = f"""
import tunelab
TUNE, BANDIT, HOAG = {TUNE!r}, {BANDIT!r}, {HOAG!r}
LR, STEP, TVO = {LR!r}, {STEP!r}, {TVO!r}
COMPARE = dict(TUNE, kind="compare", reference_samples=0)
"""
# (what the cell draws, its source): each cell ends with a Figure
FIGURES = [
    ("tune scores", "r = tunelab.run(TUNE, threads=1)\nr.plot()"),
    ("tune traces", "tunelab.plot.traces(r)"),
    ("compare", "tunelab.run(COMPARE, threads=1).plot()"),
    ("bandit regret", "tunelab.plot.regret(tunelab.run(BANDIT, threads=1))"),
    ("hoag", "tunelab.plot.hoag(tunelab.run(HOAG, threads=1))"),
    ("lr-schedule", "tunelab.plot.lr_schedule(tunelab.run(LR, threads=1))"),
    ("step-size", "tunelab.plot.step_size(tunelab.run(STEP, threads=1))"),
    ("tvo", "tunelab.run(TVO, threads=1).plot()"),
    ("Mamba ask/tell", textwrap.dedent("""\
        import numpy as np
        m = tunelab.Mamba([{"scale": s} for s in np.linspace(0.2, 3.0, 9)], budget=900.0, eta=3)
        rng = np.random.default_rng(0)
        while (ask := m.ask()) is not None:
            m.tell({a: (x := rng.normal(size=(int(ask.budget), 2)) * m.arms[a]["scale"], -x) for a in ask.arms})
        tunelab.plot.scores(m.report())""")),
]


def test_a_notebook_shows_every_plot_kind_as_png_and_the_report_as_html():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SETUP)]
    nb.cells += [nbformat.v4.new_code_cell(src) for _, src in FIGURES]
    nb.cells.append(nbformat.v4.new_code_cell("r"))
    nb.cells.append(nbformat.v4.new_code_cell("r.frame('arms')[['arm', 'params_step', 'params_batch', 'score']]"))
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False).execute()
    for (what, _), cell in zip(FIGURES, nb.cells[1:]):
        results = [o for o in cell.outputs if o.output_type in ("execute_result", "display_data")]
        assert len(results) == 1, f"{what}: {cell.outputs}"
        assert "image/png" in results[0].data, f"{what}: shows {list(results[0].data)}"
        assert results[0].data["image/png"], what
    (report,) = [o for o in nb.cells[-2].outputs if o.output_type == "execute_result"]
    page = report.data["text/html"]
    assert "tunelab tune report" in page and "chosen arm" in page and ".frame('arms')" in page
    (table,) = [o for o in nb.cells[-1].outputs if o.output_type == "execute_result"]
    assert "params_step" in table.data["text/html"]
