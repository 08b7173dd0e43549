"""Numerical failure mid-run (faults, eighth pass): a fit whose state turns NaN or inf between checkpoints, in every
method family, fails naming the method, the checkpoint and the quantity, and publishes nothing (no run folder, so
no NaN row can reach all_traces.parquet or a figure)."""
import numpy as np
import pytest

from _run_util import tiny_corpus  # noqa: F401
from topicbench.cli import main as cli
from topicbench.method import get_method

FAMILIES = [
    pytest.param("online_lda", [], id="lda-online"),
    pytest.param("population_vb", [], id="population-vb"),
    pytest.param("streaming_vb", [], id="streaming-vb"),
    pytest.param("bnmf", [], id="b-nmf"),
    pytest.param("cnmf", ["--param", "m=3"], id="c-nmf"),
    pytest.param("lgnmf", ["--param", "grid_size=2"], id="lg-nmf-online"),
]


@pytest.mark.parametrize("poison", [np.nan, np.inf], ids=["nan", "inf"])
@pytest.mark.parametrize("method, extra", FAMILIES)
def test_state_turning_non_finite_at_checkpoint_3_of_5(tmp_path, capsys, monkeypatch, tiny_corpus, method, extra,
                                                       poison):
    """A fit whose global state turns NaN/inf at its third update (checkpoint 3 of 5, 60 documents) -> exit 2 naming
    the method, 'checkpoint 3 (60 documents)' and the quantity (topics or the held-out score); an old run folder kept
    as it was, no staging left."""
    cls = get_method(method)
    original = cls.partial_fit

    def partial_fit(self, batch):
        original(self, batch)
        if self.docs_seen >= 60 or getattr(self, "_poison_updates", 0) >= 2:
            for value in vars(self).values():  # every global array of the model (lambda, g/h, D, ...)
                if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.ndim >= 2:
                    value[...] = poison
        self._poison_updates = getattr(self, "_poison_updates", 0) + 1

    monkeypatch.setattr(cls, "partial_fit", partial_fit)
    out = tmp_path / "out"
    out.mkdir()
    code = cli(["run", "--corpus", str(tiny_corpus), "--out", str(out), "--method", method, "--param", "K=3",
                "--param", "batch_size=20", "--set", "n_checkpoints=5", *extra])
    err = capsys.readouterr().err
    assert code == 2 and method in err and "checkpoint 3 (60 documents)" in err, err
    assert "hold NaN or inf" in err or "log-likelihood" in err or "non-finite" in err, err
    assert list(out.iterdir()) == [] and not list(tmp_path.glob(".out.*"))
