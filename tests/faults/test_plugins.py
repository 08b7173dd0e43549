"""Method and dataset plugin files (methods/*.py, datasets/*.py, loaded by path): a file that cannot be a plugin is
refused with an error naming the file, at registry load (so at DAG build and before any run reads data), never a
traceback from inside the import machinery, a plugin silently ignored, or a name that later reaches a path or a
command line unchecked."""
from pathlib import Path

import pytest

from _run_util import REPO
import topicbench.method as method_module
from topicbench.cli import main as cli
from topicbench.dataset import Dataset
from topicbench.method import PluginError, load_plugins, plugin_file, registry

# a working method plugin; each case below spoils one thing of it
GOOD = """
from topicbench.lda import ONLINE_PARAMS, VariationalLDA


class MyMethod(VariationalLDA):
    name = {name}
    uses_corpus_size = True
    params = {params}

    def partial_fit(self, batch):
        self.stochastic_step(batch, self.corpus_size)
"""


def plugin(folder: Path, stem: str = "my_method", name: str = '"my_method"', params: str = "dict(ONLINE_PARAMS)",
           text: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.py"
    path.write_text(text if text is not None else GOOD.format(name=name, params=params))
    return path


@pytest.mark.parametrize("spoil, message", [
    pytest.param(dict(text="raise RuntimeError('boom at import')\n"),
                 "the plugin file cannot be loaded (RuntimeError: boom at import)", id="plugin-raises-at-import"),
    pytest.param(dict(text="def broken(:\n    pass\n"), ", line 1: the plugin file cannot be loaded (SyntaxError",
                 id="plugin-syntax-error"),
    pytest.param(dict(text="import topicbench_no_such_package\n"), "cannot be loaded (ModuleNotFoundError",
                 id="plugin-imports-a-missing-package"),
    pytest.param(dict(params='["K", "alpha"]'), "my_method.params must be a dict of parameter "
                 "defaults, got list", id="plugin-params-a-list"),
    pytest.param(dict(name='"../evil"'), "plugin name '../evil' is not a safe name", id="plugin-name-escapes"),
    pytest.param(dict(name='"-rf"'), "plugin name '-rf' is not a safe name", id="plugin-name-leading-dash"),
    pytest.param(dict(name='"my method"'), "plugin name 'my method' is not a safe name", id="plugin-name-with-space"),
    pytest.param(dict(name="3"), "plugin name 3 is not a safe name", id="plugin-name-not-a-string"),
    pytest.param(dict(params='{**ONLINE_PARAMS, "a/b": 1.0}'), "has the name 'a/b', which is not a parameter name",
                 id="plugin-param-name-with-slash"),
    pytest.param(dict(params='{**ONLINE_PARAMS, "K~1": 1.0}'), "has the name 'K~1', which is not a parameter name",
                 id="plugin-param-name-with-tilde"),
    pytest.param(dict(params='{**ONLINE_PARAMS, "grid": [1, 2]}'), "my_method.params['grid'] defaults to [1, 2] (list)",
                 id="plugin-param-default-a-list"),
    pytest.param(dict(params='{**ONLINE_PARAMS, "a0": None}'), "param 'a0' defaults to None and needs a param_types",
                 id="plugin-param-none-without-type"),
    pytest.param(dict(params='{k: v for k, v in ONLINE_PARAMS.items() if k != "K"}'), "params must declare K",
                 id="plugin-without-K"),
    pytest.param(dict(text=GOOD.replace("    def partial_fit", "    def partial_fitt").format(
        name='"my_method"', params="dict(ONLINE_PARAMS)")), "does not implement partial_fit()",
        id="plugin-without-partial_fit"),
    pytest.param(dict(text="from topicbench.lda import VariationalLDA\n"), "exactly one Method subclass with a name; found 0",
                 id="plugin-defines-no-method"),
])
def test_malformed_method_plugin_named(tmp_path, spoil, message):
    """A method plugin file that cannot be a plugin -> PluginError naming the file and the problem, at registry load.

    It raises at import, its name is unsafe, its params are not a mapping of safe names to plain defaults, or it
    lacks K or partial_fit (was: a traceback from the import machinery, or accepted)."""
    path = plugin(tmp_path / "methods", **spoil)
    with pytest.raises(PluginError) as info:
        registry(tmp_path / "methods")
    assert str(path) in str(info.value) and message in str(info.value), str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)  # the CLI's catch; older callers'


def test_two_plugins_of_one_name_name_both_files(tmp_path):
    """Two method files defining the same name -> PluginError naming both files (not only the second)."""
    first = plugin(tmp_path / "methods", stem="a_method")
    second = plugin(tmp_path / "methods", stem="b_method")
    with pytest.raises(PluginError) as info:
        registry(tmp_path / "methods")
    assert f"{second}: plugin name 'my_method' is already defined by {first}" in str(info.value)


def test_malformed_dataset_plugin_named(tmp_path):
    """A dataset plugin file that raises at import -> PluginError naming the file (datasets share the loader)."""
    path = plugin(tmp_path / "datasets", stem="my_recipe", text="import topicbench_no_such_reader\n")
    with pytest.raises(PluginError, match=rf"{path}: the plugin file cannot be loaded \(ModuleNotFoundError"):
        load_plugins(tmp_path / "datasets", Dataset, "dataset")


def test_cli_reports_a_broken_plugin_in_one_line(tmp_path, capsys, monkeypatch):
    """A broken file in methods/ when `topicbench run` loads the registry -> exit 2, one line naming the file, no
    traceback, and nothing written (was: the plugin's own traceback)."""
    path = plugin(tmp_path / "methods", text="raise RuntimeError('boom at import')\n")
    monkeypatch.setattr(method_module, "METHODS_DIR", tmp_path / "methods")
    monkeypatch.setattr(method_module, "_METHODS", None)
    code = cli(["run", "--corpus", str(tmp_path / "no_corpus"), "--out", str(tmp_path / "out"), "--method", "online_lda"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"topicbench: error: {path}: the plugin file cannot be loaded"), err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_registry_that_failed_stays_failed(tmp_path, monkeypatch):
    """A plugin breaking the contract, its registry asked for twice in one process -> both calls fail.

    (Snakemake builds the DAG after other code asked; was: the second call returned the broken method.)"""
    plugin(tmp_path / "methods", text=GOOD.replace("    def partial_fit", "    def partial_fitt").format(
        name='"my_method"', params="dict(ONLINE_PARAMS)"))
    monkeypatch.setattr(method_module, "METHODS_DIR", tmp_path / "methods")
    monkeypatch.setattr(method_module, "_METHODS", None)
    for _ in range(2):
        with pytest.raises(PluginError, match="does not implement partial_fit"):
            registry()


def test_plugin_of_a_builtin_file_name_elsewhere_is_its_own(tmp_path):
    """A plugin folder holding a file named like a built-in (online_lda.py) once the built-ins are loaded -> its
    own class is loaded (was: the built-in online_lda class, silently, from the import cache)."""
    registry()  # the built-ins, as in any process that ran the workflow's DAG build
    path = plugin(tmp_path / "methods", stem="online_lda", name='"my_online"')
    methods = registry(tmp_path / "methods")
    assert sorted(methods) == ["my_online"] and plugin_file(methods["my_online"]) == path


def _workflow_function(name: str, namespace: dict):
    """A function of workflow/rules/common.smk (a plain Python def there), defined in ``namespace``."""
    lines = (REPO / "workflow" / "rules" / "common.smk").read_text().splitlines()
    start = lines.index(next(line for line in lines if line.startswith(f"def {name}(")))
    end = next((i for i in range(start + 1, len(lines)) if lines[i] and not lines[i][0].isspace()), len(lines))
    exec(compile("\n".join(lines[start:end]), "common.smk", "exec"), namespace)  # Snakemake's own syntax lies outside
    return namespace[name]


def test_workflow_lists_the_file_a_method_came_from(tmp_path, monkeypatch):
    """A method plugin whose file is not named after it (methods/my_methods.py defining my_method) -> the fit job
    lists that file as its code input (was: methods/my_method.py, a missing input Snakemake cannot make)."""
    path = plugin(tmp_path / "methods", stem="my_methods", name='"my_method"')
    monkeypatch.setattr(method_module, "METHODS_DIR", tmp_path / "methods")
    monkeypatch.setattr(method_module, "_METHODS", None)

    class Spec:
        method = "my_method"

    class Wildcards:
        run_id = "e/d/my_method/x"

    fit_code = _workflow_function("fit_code", {"RUNS": {Wildcards.run_id: {"spec": Spec}}, "PACKAGE_FILES": []})
    assert fit_code(Wildcards) == [str(path)] and path.is_file()


def test_workflow_lists_the_file_a_recipe_came_from(monkeypatch):
    """A dataset recipe (nyt_like) -> the prepare job lists the very file the recipe was loaded from (the same
    lookup as methods, so a recipe in a file of another name is found too)."""
    from topicbench.dataset import get_dataset

    class Wildcards:
        dataset = "d"

    prepare_code = _workflow_function("prepare_code", {"config": {"datasets": {"d": {"recipe": "nyt_like"}}},
                                                       "PACKAGE_FILES": []})
    assert prepare_code(Wildcards) == [str(plugin_file(get_dataset("nyt_like")))]
    assert prepare_code(Wildcards) == [str(REPO / "datasets" / "nyt_like.py")]


FIGURE = """
import figlib

FIGURE = figlib.Figure(paper="hoffman", title="a figure", kind="table", experiments={experiments}, extra={extra})


def draw(ctx):
    pass
"""


@pytest.mark.parametrize("spoil, message", [
    pytest.param(dict(text="raise RuntimeError('boom at import')\n"),
                 "the figure file cannot be loaded (RuntimeError: boom at import)", id="figure-raises-at-import"),
    pytest.param(dict(experiments='"hu_*"'), "experiments must be a tuple of names, got 'hu_*'",
                 id="figure-experiments-a-bare-string"),
    pytest.param(dict(experiments="()"), "experiments names no experiment", id="figure-experiments-empty"),
    pytest.param(dict(extra='("../../outside.csv",)'), "extra output '../../outside.csv' must be a file under figures/",
                 id="figure-extra-escapes-results"),
    pytest.param(dict(extra='("/tmp/outside.csv",)'), "extra output '/tmp/outside.csv' must be a file under figures/",
                 id="figure-extra-absolute"),
    pytest.param(dict(extra='("all_traces.parquet",)'), "extra output 'all_traces.parquet' must be a file under",
                 id="figure-extra-over-the-aggregate-table"),
    pytest.param(dict(extra='"tables/x.csv"'), "extra must be a tuple of names, got 'tables/x.csv'",
                 id="figure-extra-a-bare-string"),
])
def test_malformed_figure_plugin_named(tmp_path, monkeypatch, spoil, message):
    """A malformed figure file (workflow/figures/*.py) -> ValueError naming the file at discovery (DAG build).

    It raises at import, declares its experiments or extra outputs as a bare string, or an extra output outside
    figures/ and tables/ (was: a traceback; 'hu_*' read as the patterns h, u, _, * matching every experiment; a
    file written anywhere)."""
    monkeypatch.syspath_prepend(str(REPO / "workflow" / "scripts"))
    import figlib

    monkeypatch.setattr(figlib, "PLUGIN_DIR", tmp_path)
    fields = {"experiments": '("hu_fig1",)', "extra": "()", **spoil}
    path = tmp_path / "my_figure.py"
    path.write_text(spoil.get("text") or FIGURE.format(experiments=fields["experiments"], extra=fields["extra"]))
    with pytest.raises(ValueError) as info:
        figlib.discover(["hoffman_fig1", "hu_fig1"])
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value), str(info.value)


def test_check_params_with_a_bug_is_named(tmp_path):
    """A method whose check_params raises something else than ParamError (a bug: values arrive typed) -> PluginError
    naming the file and the exception, before any compute (was: a bare TypeError traceback at DAG build)."""
    text = GOOD.format(name='"my_method"', params="dict(ONLINE_PARAMS)") + '''
    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        if p["K"] > None:
            pass
'''
    path = plugin(tmp_path / "methods", text=text)
    method = registry(tmp_path / "methods")["my_method"]
    with pytest.raises(PluginError) as info:
        method.resolve_params({"K": 3})
    assert str(info.value).startswith(f"{path}: my_method.check_params/unused_params raised TypeError"), str(info.value)
    assert isinstance(info.value, ValueError)  # so the grid's GridError and the CLI's one line report it


RECIPE = '''
import numpy as np
import pandas as pd
import scipy.sparse as sp

from topicbench.corpus import Corpus
from topicbench.dataset import Dataset


class TwoBlock(Dataset):
    name = "two_block"
    description = "two disjoint word blocks"
    params = {"n_docs": 40, "seed": 0}
    synthetic = True

    def build(self, corpora_dir=None, n_docs=40, seed=0):
        rng = np.random.default_rng(seed)
        counts = np.stack([np.bincount(rng.integers(10 * (d % 2), 10 * (d % 2) + 10, size=20), minlength=20)
                           for d in range(n_docs)])
        docs = pd.DataFrame({"doc_id": [f"d{d}" for d in range(n_docs)],
                             "split": ["train"] * (n_docs - 10) + ["test"] * 10})
        {spoil}
        return Corpus(sp.csr_matrix(counts), [f"w{v}" for v in range(20)], docs)
'''


@pytest.mark.parametrize("spoil, message", [
    pytest.param("", None, id="recipe-correct"),
    pytest.param("raise RuntimeError('boom in build')", "two_block.build raised RuntimeError (boom in build)",
                 id="recipe-build-raising"),
    pytest.param("docs = docs.iloc[:-1]; docs = pd.DataFrame({'a': [1, 2], 'b': [1]})",
                 "two_block.build raised ValueError (All arrays must be of the same length)",
                 id="recipe-build-raising-a-pandas-valueerror"),
    pytest.param("return None", "two_block.build returned NoneType, not a topicbench.corpus.Corpus",
                 id="recipe-build-returning-none"),
    pytest.param("counts[0, 0] = -3", "counts must be non-negative integers, got np.int64(-3)",
                 id="recipe-build-returning-negative-counts"),
    pytest.param("docs = docs.drop(columns='split')", "missing column 'split'", id="recipe-docs-without-split"),
    pytest.param("counts = counts + np.random.binomial(1, 0.5, counts.shape)", "drew from numpy's or Python's global",
                 id="recipe-drawing-from-numpys-global-generator"),
])
def test_dataset_recipe_breaking_its_contract_named(tmp_path, capsys, monkeypatch, spoil, message):
    """Recipe build raising, returning no Corpus or bad counts, drawing from np.random -> prepare exits 2 naming it.

    One line, nothing written (was: a traceback; a bare 'All arrays must be of the same length'; a new corpus at
    each prepare of the same seed; negative counts or no split column named under the output folder only). The correct
    recipe prepares."""
    import topicbench.dataset as dataset_module

    path = plugin(tmp_path / "datasets", stem="two_block", text=RECIPE.replace("{spoil}", spoil))
    monkeypatch.setattr(dataset_module, "_DATASETS", load_plugins(tmp_path / "datasets", Dataset, "dataset"))
    code = cli(["prepare", "two_block", "--out", str(tmp_path / "corpus")])
    err = capsys.readouterr().err
    if message is None:
        assert code == 0 and (tmp_path / "corpus" / "corpus.json").is_file(), err
        return
    assert code == 2 and str(path) in err and message in err, err
    assert "Traceback" not in err and not (tmp_path / "corpus").exists()


DRAWN = '''import figlib

FIGURE = figlib.Figure(paper="hoffman", title="a figure", kind="figure", experiments=("demo",))


def draw(ctx):
    frame = ctx.frame("demo")
{body}
'''


@pytest.mark.parametrize("body, message", [
    pytest.param("    fig, ax = figlib.plt.subplots()\n    ctx.save(fig)\n    ctx.write('caption')", None,
                 id="figure-correct"),
    pytest.param("    frame['no_such_column']", "draw(ctx) raised KeyError ('no_such_column')", id="figure-draw-raising"),
    pytest.param("    fig, ax = figlib.plt.subplots()\n    ctx.save(fig)",
                 "draw(ctx) returned without writing its declared output(s) md, rst", id="figure-draw-not-writing"),
])
def test_figure_draw_breaking_its_contract_named(tmp_path, monkeypatch, body, message):
    """Figure draw raising, or returning without writing a declared output -> ValueError naming the figure file.

    None of its outputs is written (was: the plugin's traceback; Snakemake's MissingOutputException after its
    latency wait, naming output files but not the figure file). The correct figure writes all."""
    import pandas as pd

    monkeypatch.syspath_prepend(str(REPO / "workflow" / "scripts"))
    import figlib

    monkeypatch.setattr(figlib, "PLUGIN_DIR", tmp_path / "figures")
    path = plugin(tmp_path / "figures", stem="my_figure", text=DRAWN.replace("{body}", body))
    traces = tmp_path / "all_traces.parquet"
    pd.DataFrame({"experiment": ["demo"], "docs_seen": [1], "perplexity": [2.0]}).to_parquet(traces)
    module = figlib.load_plugin("my_figure")
    outputs = {role: str(tmp_path / "results" / rel) for role, rel in module.FIGURE.outputs("my_figure").items()}
    ctx = figlib.Context("my_figure", module.FIGURE, ["demo"], traces, {}, {}, outputs)
    if message is None:
        figlib.draw_plugin(module, ctx)
        assert all(Path(out).is_file() for out in outputs.values())
        return
    with pytest.raises(ValueError) as info:
        figlib.draw_plugin(module, ctx)
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value), str(info.value)
    assert not (tmp_path / "results").exists() or not any(p.is_file() for p in (tmp_path / "results").rglob("*"))


def test_param_typed_by_a_default_of_the_wrong_type_names_the_default(tmp_path):
    """Plugin default of the wrong type (kappa = 1, not 1.0), given 0.7 -> ParamError naming the default and the file.

    (Was: 'must be a whole number, got 0.7', which points at the config value, not at the default that made kappa
    an integer.)"""
    path = plugin(tmp_path / "methods", params='{**ONLINE_PARAMS, "kappa": 1}')
    method = registry(tmp_path / "methods")["my_method"]
    with pytest.raises(method_module.ParamError) as info:
        method.resolve_params({"kappa": 0.7})
    message = str(info.value)
    assert "must be a whole number, got 0.7" in message and f"its default 1 in {path}" in message, message
