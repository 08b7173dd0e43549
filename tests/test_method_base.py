"""The plugin base class's own rules (topicbench/method.py), on a minimal plugin and by hand: what a value is
coerced to at the int64 and float limits, which params may be null, the corpus size, kappa = 0.5's switch, the
default topic weights, and how plugin files are found and loaded."""
import sys

import numpy as np
import pytest

from topicbench.method import (Method, ParamError, _check_plugin_shape, _load_module, coerce, global_generators,
                               load_plugins, plugin_file)


class Tiny(Method):
    """The least a plugin declares: K, a kappa without the kappa = 0.5 switch, and a float with a declared type."""
    name = "tiny"
    params = {"K": 2, "kappa": 0.7, "rate": 1.0}
    param_types = {"rate": float}


class TinyWithD(Tiny):
    uses_corpus_size = True


@pytest.mark.parametrize("value, kind, expected", [
    pytest.param(2**63 - 1, int, 2**63 - 1, id="int64-max"),
    pytest.param(-2**63, int, -2**63, id="int64-min"),
    pytest.param(-5, int, -5, id="negative-int"),
    pytest.param("09007199254740993", int, 9007199254740993, id="integer-text-beyond-2**53-stays-exact"),
    pytest.param(sys.float_info.max, float, sys.float_info.max, id="largest-float"),
])
def test_coerce_keeps_values_at_the_limits(value, kind, expected):
    got = coerce(value, kind, "x")
    assert got == expected and type(got) is kind


@pytest.mark.parametrize("value, kind, message", [
    pytest.param(2**63, int, "64-bit", id="int64-max-plus-one"),
    pytest.param(-2**63 - 1, int, "64-bit", id="int64-min-minus-one"),
    pytest.param(10**400, float, "finite", id="int-beyond-float-range"),
    pytest.param(None, int, "got null", id="null-where-not-optional"),
])
def test_coerce_refuses_values_beyond_the_limits(value, kind, message):
    with pytest.raises(ValueError, match=message):
        coerce(value, kind, "x")


def test_only_declared_optional_params_take_null():
    """A default's type and a declared bare type take no null; only a declared (type, None) does."""
    assert Tiny.param_type("K") == (int, False) and Tiny.param_type("rate") == (float, False)
    assert Tiny.param_type("batch_size") == (int, True)
    for key in ("K", "rate"):
        with pytest.raises(ParamError, match="got null"):
            Tiny.resolve_params({key: None})


def test_corpus_size_is_given_only_to_methods_that_use_it():
    assert Tiny(5).hyper["K"] == 2 and not hasattr(Tiny(5), "corpus_size")
    assert (Tiny(5).updates, Tiny(5).docs_seen) == (0, 0)  # a new method has made no update and seen no document
    assert TinyWithD(5, corpus_size=1).corpus_size == 1
    for bad in (None, 0):
        with pytest.raises(ParamError, match="corpus size"):
            TinyWithD(5, corpus_size=bad)


def test_kappa_half_is_refused_without_its_switch():
    """kappa = 0.5 lies outside (0.5, 1]; a method with no allow_kappa_half param can never admit it."""
    with pytest.raises(ParamError, match="kappa"):
        Tiny.resolve_params({"kappa": 0.5})
    assert Tiny.resolve_params({"kappa": 1.0})["kappa"] == 1.0


def test_default_topic_weights_are_each_topics_mass():
    class Fixed(Tiny):
        def topics(self):
            return np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 0.0]])  # K = 2 topics over V = 3 words, one empty

    np.testing.assert_array_equal(Fixed(3).topic_weights(), [1.0, 0.0])


def test_plugin_files_load_once_each_under_its_own_module(tmp_path):
    """The same file twice -> the same module (the same classes); two files of one stem in two folders -> two
    modules, each class naming its own file; a '_' helper file in the folder is skipped, not the files after it."""
    text = ("from topicbench.method import Method\n\nclass P(Method):\n    name = {!r}\n    params = {{'K': 2}}\n")
    for folder, name in (("a", "p_a"), ("b", "p_b")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "_helpers.py").write_text("raise RuntimeError('a helper is no plugin')\n")
        (tmp_path / folder / "plug.py").write_text(text.format(name))
    module_name = "_topicbench_test_method_base_plug"
    try:
        first = _load_module(tmp_path / "a" / "plug.py", module_name)
        assert _load_module(tmp_path / "a" / "plug.py", module_name) is first
        found = {**load_plugins(tmp_path / "a", Method, "test_method_base"),
                 **load_plugins(tmp_path / "b", Method, "test_method_base")}
        assert sorted(found) == ["p_a", "p_b"]
        assert [plugin_file(found[n]) for n in ("p_a", "p_b")] == [tmp_path / "a" / "plug.py", tmp_path / "b" / "plug.py"]
    finally:
        for name in [n for n in sys.modules if n.startswith(module_name)]:
            del sys.modules[name]


def test_a_default_of_another_type_is_accepted_when_declared(tmp_path):
    class Declared(Tiny):
        params = {"K": 2, "kappa": 0.7, "rate": 1.0, "scale": np.float32(2.0)}
        param_types = {"scale": float}

    _check_plugin_shape(Declared, tmp_path / "declared.py")


def test_default_warm_up_runs_two_updates_a_prediction_and_a_bound_on_a_twin():
    """Method.warm_up: a copy takes two updates (each followed by after_update), predicts the held-out half of the
    tiny batch and bounds it; the method itself is untouched."""
    import scipy.sparse as sp

    from topicbench.streams import Minibatch

    calls = []

    class Recording(Tiny):
        def partial_fit(self, batch):
            self.updates += 1
            calls.append(("partial_fit", self.updates))

        def after_update(self):
            calls.append(("after_update", self.updates))

        def predict_words(self, observed, word_ids):
            calls.append(("predict_words", observed.sum(), word_ids.sum()))
            return np.full(word_ids.nnz, 0.5)

        def heldout_elbo(self, counts):
            calls.append(("heldout_elbo", counts.sum()))

    counts = sp.csr_matrix(np.array([[4, 2, 0], [0, 3, 3]]))
    method = Recording(3)
    method.warm_up(Minibatch(counts, np.arange(2), np.arange(2), None, 0))
    assert calls == [("partial_fit", 1), ("after_update", 1), ("partial_fit", 2), ("after_update", 2),
                     ("predict_words", 6, 6), ("heldout_elbo", 12)]  # half of each document's 6 tokens observed
    assert method.updates == 0


def test_one_draw_from_a_global_generator_changes_its_recorded_state():
    """global_generators: one draw moves numpy's legacy generator's position (its key only every 624 draws) or
    Python's state, and either is seen."""
    import random

    numpy_state, python_state = np.random.get_state(), random.getstate()
    try:
        np.random.seed(0)
        np.random.random()  # mid-way through a block of 624 keys: the next draw moves the position alone
        for draw in (np.random.random, random.random):
            before = global_generators()
            draw()
            assert global_generators() != before, draw
    finally:
        np.random.set_state(numpy_state)
        random.setstate(python_state)
