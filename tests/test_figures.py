"""The figure layer's contract (workflow/figures/*.py through figlib), the findings' judges and the paper's Typst
writer, without running the workflow (tests/test_ci_regression.py builds them on the ci profile)."""
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "workflow" / "scripts"))
import build_paper  # noqa: E402
import figlib  # noqa: E402

sys.path.insert(0, str(figlib.PLUGIN_DIR))
import _claims  # noqa: E402


def test_every_figure_file_declares_the_contract_and_every_profile_draws_its_mirrors():
    names = [p.stem for p in figlib.PLUGIN_DIR.glob("[!_]*.py")]
    for name in names:
        plugin = figlib.load_plugin(name)
        assert plugin.FIGURE.paper in figlib.PAPERS and callable(plugin.draw)
    for profile in ("ci", "default", "paper"):
        config = yaml.safe_load((REPO / "workflow" / "config" / f"{profile}.yaml").read_text())
        found = figlib.discover(list(config["experiments"]))
        assert {"hoffman_fig1", "hoffman_fig2", "hoffman_table1", "paisley_fig11_3", "paisley_fig11_4",
                "mcinerney_fig1", "mcinerney_fig3", "hu_fig1", "hu_fig4", "hu_table1", "hu_fig5", "hu_fig6",
                "hu_table3", "findings"} <= set(found), profile
        assert found["mcinerney_fig1"][1] == [e for e in config["experiments"] if e.startswith("mcinerney_fig1_")]
        papers = [figure.paper for figure, _ in found.values()]
        assert papers == sorted(papers, key=list(figlib.PAPERS).index)  # paper order, findings last


def test_a_figure_without_its_experiment_is_not_built_and_outputs_follow_the_kind():
    assert "hoffman_fig1" not in figlib.discover(["hu_fig5"])
    figure = figlib.load_plugin("hoffman_table1").FIGURE
    assert set(figure.outputs("hoffman_table1").values()) == {
        "tables/hoffman_table1.md", "tables/hoffman_table1.csv", "report/captions/hoffman_table1.rst",
        "tables/hoffman_table1_grid.csv"}
    with pytest.raises(ValueError, match="paper 'nobody'"):
        figlib.Figure(paper="nobody", title="x", experiments=("x",))


def test_final_rows_keeps_the_last_checkpoint_of_each_run():
    frame = pd.DataFrame({"experiment": "e", "dataset": "d", "method": "m", "label": "l", "seed": [0, 0, 1, 1],
                          "p_K": [5, 5, 5, 5], "docs_seen": [10, 20, 10, 20], "x": [1.0, 2.0, 3.0, 4.0]})
    assert figlib.final_rows(frame)["x"].tolist() == [2.0, 4.0]


def test_directional_judge_follows_the_sign_and_needs_two_replicates():
    assert _claims.directional([0.10, 0.11, 0.12], "d", "seeds").verdict == "reproduced"
    assert _claims.directional([-0.10, -0.11, -0.12], "d", "seeds").verdict == "not reproduced"
    assert _claims.directional([0.1, -0.1, 0.05], "d", "seeds").verdict == "mixed"
    assert _claims.directional([0.1], "d", "seeds").verdict == "cannot be judged"
    s = _claims.paired([1.0, 2.0, 3.0])
    # mean 2, sd 1, se 1/sqrt(3): t = 2 sqrt(3), df 2
    assert s["t"] == pytest.approx(2 * np.sqrt(3)) and s["lo"] == pytest.approx(2 - 4.302653 / np.sqrt(3), rel=1e-6)


def test_every_claim_has_a_judge_and_a_missing_experiment_cannot_be_judged():
    class Empty:
        experiments, traces = [], pd.DataFrame(columns=["experiment", "docs_seen", "loglik_per_word", "p_K",
                                                        "p_batch_size", "seed"])

    for claim in _claims.CLAIMS:
        j = claim["judge"](Empty())
        assert j.verdict == "cannot be judged" and "missing experiment" in j.test, claim["claim"]


def test_typst_text_is_escaped_as_string_literals():
    assert build_paper.typst_str('a "b" \\ #c $d$ [e]') == '"a \\"b\\" \\\\ #c $d$ [e]"'
    source = build_paper.to_typst([("heading", 2, "Sec #1"), ("para", 'say "x" = $y$'),
                                   ("table", ["a", "b"], [["1", "2|3"]])], Path("/r"), "T")
    assert '#heading(level: 1, "Sec #1")' in source and '#par("say \\"x\\" = $y$")' in source
    assert 'table.header(strong("a"), strong("b")), "1", "2|3"' in source


def test_markdown_parts_round_trip_through_blocks():
    text = "### Title\n\nCaption text\nsecond line.\n\n| a | b |\n|---|---:|\n| x \\| y | 1.5 |\n"
    blocks = build_paper.parse_markdown(text)
    assert blocks == [("heading", 3, "Title"), ("para", "Caption text second line."),
                      ("table", ["a", "b"], [["x | y", "1.5"]])]
