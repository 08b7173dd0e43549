"""The method plugin contract and the registry that discovers ``methods/*.py`` by path.

A method file defines one subclass of :class:`Method` (modelled on benchopt's solver files):

- ``name``: the registry key, e.g. ``online_lda``;
- ``params``: the default of every hyperparameter, and so every grid axis;
- ``check_params(params)``: raise :class:`ParamError` naming the culprit (called before any fit);
- ``partial_fit(batch)``: one update of the global parameters from a :class:`~topicbench.streams.Minibatch`;
- ``predict_words(observed, word_ids)``: p(w | observed part, globals) at the nonzeros of ``word_ids``, a
  distribution over the whole vocabulary (the runner checks that it sums to 1 over all V words);
- ``topics()`` (K x V, rows summing to 1) and ``topic_weights()`` (K);
- ``state()`` / ``from_state()``: a dict of names to numpy arrays or numbers (model.npz stores it without pickle)
  from which ``load_state`` rebuilds the same topics; the runner checks the round trip at the first checkpoint.

Random draws come from ``self.rng`` (seeded from the run's seed); the runner refuses a method that draws from numpy's
or Python's global generator, which no seed of the run fixes.

What the runner gives a method, besides its params: the vocabulary size, a seed, a thread
count and, only if ``uses_corpus_size`` is true, the training corpus size ``corpus_size``
(online LDA's D). Streaming VB sets it false and so never sees D; population VB sets it
false and takes its data size alpha as a hyperparameter instead.

``batch_size = None`` in ``params`` (or no such key) marks a batch method: the runner hands it
the whole training set as one minibatch per pass. ``model_before_first_batch = False`` marks a method built from
its first minibatch (a peer's init): no run may score it before that (every_nth_batch with holdout_n = 1).
"""
from __future__ import annotations

import copy
import hashlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
METHODS_DIR = REPO_ROOT / "methods"


class ParamError(ValueError):
    """An impossible or unknown hyperparameter, reported before any compute."""


# experiment, dataset, run-label and method names become path components, job names and command-line values: no
# leading '-' either (``--name -x`` is read as an option, not a value, by the command the workflow runs)
# ASCII only (a name in NFC and NFD, or one case-folding beyond ASCII, would be two folders on Linux and one on
# macOS), no trailing '.' (Windows and SMB shares strip it: 'exp.' and 'exp' are one folder there), and not a
# Windows device name (CON, PRN, AUX, NUL, COM0-9, LPT0-9 in any case, alone or before a '.': 'con.txt' opens the
# console, not a file, on a results_dir kept on NTFS or a Windows share)
WINDOWS_DEVICE = r"(?!(?i:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\.|$))"
SAFE_NAME = re.compile(WINDOWS_DEVICE + r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?")
# a formatted hyperparameter value in a run folder's name (after its ``<name>~`` prefix, so -1 is fine)
SAFE_VALUE = re.compile(r"[A-Za-z0-9_-](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?")
SAFE_RULES = ("letters, digits, '_', '.', '-' (ASCII); no leading dot or dash, no trailing dot, and not a Windows "
              "device name (CON, PRN, AUX, NUL, COM1, LPT1, ... in any case, alone or before a dot)")
# YAML 1.2 core-schema numbers (https://yaml.org/spec/1.2.2/#1032-tag-resolution)
YAML12_NUMBER = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
INT64_MAX = 2**63 - 1
# plain scalars YAML 1.1 (PyYAML: the CLI's --param, Snakemake's config) reads as numbers YAML 1.2 does not, and
# not as written: 010 is octal 8, 1:30 is sexagesimal 90, 0b11 is binary 3
YAML11_ONLY_NUMBER = re.compile(r"[-+]?(0[0-7_]+|0b[01_]+|[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?)")


def _check_underflow(text: str, what: str) -> None:
    """ValueError naming ``what`` if the number ``text`` is not zero but reads as the float 0.0 (``1e-400``)."""
    mantissa = re.split(r"[eE]", text.replace("_", ""), maxsplit=1)[0]
    if re.search(r"[1-9]", mantissa) and re.fullmatch(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?",
                                                      text.replace("_", "")) and float(text.replace("_", "")) == 0.0:
        raise ValueError(f"{what}: {text!r} is below the smallest float and would be read as 0; give a larger value "
                         f"or 0")


# plain scalars YAML 1.1 (PyYAML) reads as booleans and YAML 1.2 as text: a dataset named `no` becomes False
YAML11_ONLY_BOOL = re.compile(r"yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF")


def check_yaml11_number(text: str, what: str) -> None:
    """ValueError naming ``what`` if the plain YAML scalar ``text`` is a number only YAML 1.1 reads, and reads
    as another value than it shows (``010`` is 8, ``1:30`` is 90), or a nonzero number that reads as 0.0
    (``1.0e-400``), or a word only YAML 1.1 reads as a boolean (``no`` is False, ``on`` is True): never a
    silently changed value, nor an error that names False where the user wrote ``no``."""
    text = text.strip()
    if YAML11_ONLY_BOOL.fullmatch(text):
        raise ValueError(f"{what}: {text!r} reads as the boolean {yaml.safe_load(text)!r} in YAML 1.1 (and as text in "
                         f"YAML 1.2); write true or false for a boolean, or quote it for text")
    _check_underflow(text, what)
    if YAML11_ONLY_NUMBER.fullmatch(text):
        read = yaml.safe_load(text)
        if re.fullmatch(r"[-+]?[0-9_]+", text) and read == int(text):  # 00 or 07: the same value either way
            return
        raise ValueError(f"{what}: {text!r} reads as {read!r} in YAML 1.1 (octal, binary or base-60); "
                         f"write the number in decimal, or quote it for text")


def coerce(value: Any, kind: type, what: str, optional: bool = False) -> Any:
    """``value`` as ``kind`` (bool, int, float or str), or ValueError naming ``what``; never a silent change.

    YAML 1.1 (PyYAML, Snakemake's config loader, the CLI's ``--param``) reads ``1e-4`` and ``1e3`` as text;
    where a number is declared, such text (a YAML 1.2 number that YAML 1.1 left a string) becomes that
    number. Text YAML 1.1 would not have left as text (``"6"``, quoted on purpose) stays an error, and a
    string param stays a string. Booleans are never numbers, integers must be whole (2.0 -> 2, 2.5 is an
    error), and infinities and NaN are refused.
    """
    if value is None:
        if optional:
            return None
        raise ValueError(f"{what} must be a {kind.__name__}, got null")
    if kind is str:
        if not isinstance(value, str):
            raise ValueError(f"{what} must be a string, got {value!r}")
        return value
    if kind is bool:
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise ValueError(f"{what} must be true or false, got {value!r}")
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be a number ({kind.__name__}), got the boolean {value!r}")
    if isinstance(value, str):
        text = value.strip()
        if not (YAML12_NUMBER.fullmatch(text) and isinstance(yaml.safe_load(text), str)):
            raise ValueError(f"{what} must be a number ({kind.__name__}), got the text {value!r}")
        _check_underflow(text, what)
        value = int(text) if kind is int and re.fullmatch(r"[-+]?[0-9]+", text) else float(text)
    if not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{what} must be a number ({kind.__name__}), got {value!r}")
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        raise ValueError(f"{what} must be finite, got {value!r}")
    if kind is float and abs(value) > sys.float_info.max:  # an int beyond float range
        raise ValueError(f"{what} must be finite, got {value!r}")
    if kind is int:
        if isinstance(value, (float, np.floating)) and not float(value).is_integer():
            raise ValueError(f"{what} must be a whole number, got {value!r}")
        if not -INT64_MAX - 1 <= int(value) <= INT64_MAX:  # numba kernels, numpy arrays and the trace hold int64
            raise ValueError(f"{what} must fit a 64-bit integer (|value| < 2**63), got {value!r}")
        return int(value)
    return float(value)


class UnknownMethodError(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; this one should read plainly
        return str(self.args[0])


def require(condition: bool, method: str, param: str, message: str) -> None:
    if not condition:
        raise ParamError(f"{method}: hyperparameter {param!r} {message}")


class Method:
    name: ClassVar[str] = ""
    params: ClassVar[dict[str, Any]] = {}
    # the declared type of a param whose default is None (``(float, None)``: a float or null); other params
    # take the type of their default
    param_types: ClassVar[dict[str, tuple[type, None] | type]] = {"batch_size": (int, None)}  # None: batch method
    uses_corpus_size: ClassVar[bool] = False
    first_step: ClassVar[int] = 0  # t of the first update in rho_t = (tau0 + t)^-kappa (1 where a paper counts from 1)
    # False where the model is built from the first minibatch (a peer's init), so nothing can be scored before it
    model_before_first_batch: ClassVar[bool] = True
    # "lda" methods share Hoffman's held-out ELBO bound; others report NaN in that column
    family: ClassVar[str] = ""
    description: ClassVar[str] = ""

    def __init__(self, n_words: int, seed: int = 0, threads: int = 1, corpus_size: int | None = None, **params):
        self.n_words = int(n_words)
        self.seed = int(seed)
        self.threads = int(threads)
        self.hyper = self.resolve_params(params)
        if self.uses_corpus_size:
            if corpus_size is None or corpus_size < 1:
                raise ParamError(f"{self.name}: needs the training corpus size (corpus_size >= 1), got {corpus_size}")
            self.corpus_size = int(corpus_size)
        elif corpus_size is not None:
            raise ParamError(f"{self.name}: does not take a corpus size D (got corpus_size={corpus_size})")
        self.rng = np.random.default_rng([self.seed, 0x70B1C])
        self.updates = 0  # global updates so far (Hoffman's t)
        self.docs_seen = 0

    # -- parameters -----------------------------------------------------------------------
    @classmethod
    def param_type(cls, key: str) -> tuple[type, bool]:
        """(type, None allowed) of a hyperparameter, from ``param_types`` or else its default."""
        declared = next((c.__dict__["param_types"][key] for c in cls.__mro__
                         if key in c.__dict__.get("param_types", {})), None)
        if declared is None:
            default = cls.params[key]
            if default is None:
                raise TypeError(f"method {cls.name!r}: param {key!r} defaults to None and needs a param_types entry")
            kind = next(t for t in (bool, int, float, str) if isinstance(default, t))
            return kind, False
        if isinstance(declared, tuple):
            return declared[0], None in declared
        return declared, False

    @classmethod
    def resolve_params(cls, given: dict[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with ``given``, each converted to its declared type; unknown names and impossible
        values raise ParamError naming the hyperparameter, before any compute."""
        unknown = sorted(set(given) - set(cls.params))
        if unknown:
            raise ParamError(f"{cls.name}: unknown hyperparameter(s) {unknown}; known: {sorted(cls.params)}")
        merged = dict(cls.params)
        for key, value in given.items():
            kind, optional = cls.param_type(key)
            try:
                merged[key] = coerce(value, kind, f"{cls.name}: hyperparameter {key!r}", optional)
            except ValueError as err:
                declared = any(key in c.__dict__.get("param_types", {}) for c in cls.__mro__)
                # a type taken from the default: the culprit may be the plugin's default (1 where 1.0 was meant)
                hint = "" if declared else (f" (its type, {kind.__name__}, is that of its default {cls.params[key]!r} "
                                            f"in {plugin_file(cls)}; a default of another type, or a param_types "
                                            f"entry, declares another)")
                raise ParamError(f"{err}{hint}") from None
        try:
            cls.check_params(merged)
            unused = {key: why for key, why in cls.unused_params(merged).items() if key in given}
        except ParamError:
            raise
        except Exception as err:  # values arrive typed, so anything but a ParamError is the plugin's own bug: name it
            raise PluginError(f"{plugin_file(cls)}: {cls.name}.check_params/unused_params raised {type(err).__name__} "
                              f"({err}) for {merged}; it should raise ParamError naming the hyperparameter") from err
        if unused:  # recorded in the run id and the trace, yet without effect: a silently changed run
            key, why = next(iter(unused.items()))
            raise ParamError(f"{cls.name}: hyperparameter {key!r} {why}, so the value given would have no effect")
        return merged

    @classmethod
    def unused_params(cls, p: dict[str, Any]) -> dict[str, str]:
        """{name: why} of the hyperparameters these settings never read (e.g. a batch mode's SGD step size)."""
        return {}

    @classmethod
    def check_params(cls, p: dict[str, Any]) -> None:
        """Subclasses extend this; the shared checks cover the names every family uses."""
        if "K" in p:
            require(isinstance(p["K"], (int, np.integer)) and p["K"] >= 1, cls.name, "K", f"must be an integer >= 1, got {p['K']!r}")
        if p.get("batch_size") is not None:
            require(int(p["batch_size"]) >= 1, cls.name, "batch_size", f"must be >= 1, got {p['batch_size']!r}")
        for positive in ("alpha", "eta"):
            if positive in p:
                require(float(p[positive]) > 0, cls.name, positive, f"must be > 0, got {p[positive]!r}")
        if "tau0" in p:
            require(float(p["tau0"]) >= 0, cls.name, "tau0", f"must be >= 0, got {p['tau0']!r}")
            # rho_t = (tau0 + t)^-kappa from t = first_step (Hoffman et al. 2010, Alg. 2: t = 0) must lie in (0, 1]
            # (lambda = (1 - rho) lambda + rho lambda_hat is a weighted average only then): tau0 + first_step < 1
            # makes rho > 1 and pushes lambda negative, a divergence found only after the warm-up and a minibatch
            t0 = cls.first_step
            require(float(p["tau0"]) + t0 >= 1 or float(p.get("kappa", 0.0)) == 0.0, cls.name, "tau0",
                    f"must be >= {1 - t0} when kappa > 0 (the first step rho = (tau0 + {t0})^-kappa would exceed 1), "
                    f"got tau0={p['tau0']!r}, kappa={p.get('kappa')!r}")
        if "kappa" in p:
            cls.check_kappa(p)
        if "e_step_tol" in p:
            require(float(p["e_step_tol"]) > 0, cls.name, "e_step_tol", f"must be > 0, got {p['e_step_tol']!r}")
        if "e_step_max_iter" in p:
            require(int(p["e_step_max_iter"]) >= 1, cls.name, "e_step_max_iter",
                    f"must be >= 1, got {p['e_step_max_iter']!r}")

    @classmethod
    def check_kappa(cls, p: dict[str, Any]) -> None:
        """kappa in (0.5, 1] guarantees convergence (Hoffman et al. 2010, sec. 2.2); 0 is the batch setting.

        Hoffman et al. nonetheless ran kappa = 0.5 (Fig. 1, Table 1); ``allow_kappa_half = True``
        admits exactly that value, so the mirrors can be faithful while the default stays safe.
        """
        kappa = float(p["kappa"])
        half_ok = bool(p.get("allow_kappa_half", False)) and kappa == 0.5
        require(kappa == 0.0 or 0.5 < kappa <= 1.0 or half_ok, cls.name, "kappa",
                f"must lie in (0.5, 1] (or be exactly 0, the batch-equivalence setting; 0.5 needs "
                f"allow_kappa_half=true), got {kappa}")

    @property
    def batch_size(self) -> int | None:
        return self.hyper.get("batch_size")

    @property
    def n_topics(self) -> int:
        return int(self.hyper["K"])

    # -- the contract -----------------------------------------------------------------------
    def partial_fit(self, batch) -> None:
        raise NotImplementedError

    def predict_words(self, observed: sp.csr_matrix, word_ids: sp.csr_matrix) -> np.ndarray:
        """Probabilities p(w | observed_d, globals) at each nonzero of ``word_ids``, in CSR order."""
        raise NotImplementedError

    def topics(self) -> np.ndarray:
        raise NotImplementedError

    def topic_weights(self) -> np.ndarray:
        """Relative prevalence of each topic, for ordering topic tables; defaults to topic mass."""
        return self.topics().sum(axis=1)

    def heldout_elbo(self, counts: sp.csr_matrix) -> float | None:
        """Hoffman et al. 2010 eq. 16 per-word bound (LDA family only); ``None`` elsewhere."""
        return None

    def state(self) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def load_state(self, state: dict[str, np.ndarray]) -> None:
        raise NotImplementedError

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray], n_words: int, **kwargs) -> "Method":
        method = cls(n_words, **kwargs)
        method.load_state(state)
        return method

    def progress(self) -> dict[str, float]:
        """Extra numbers for the trace (e.g. step size), written as ``x_<key>`` columns of every row; optional. A method
        that turns a hyperparameter into another value it uses (rounded, clipped, derived: population_vb's population
        size, bnmf's a0 = 1/K for null) records the value used here, so no trace shows a setting it did not run."""
        return {}

    def after_update(self) -> None:
        """Numbers kept only for the trace or the model file (a bound or objective that no update reads), computed
        here rather than in ``partial_fit``: the runner calls it after every update, off the fit clock, so that fit
        time is the algorithm's alone. A method should also settle them at its next ``partial_fit`` and wherever it
        reads them, for callers that drive it without the runner. The default has none."""

    def warm_up(self, tiny_batch) -> None:
        """Exercise every compiled kernel the fit will call, so JIT compilation stays off the fit clock.

        The default is generic: a deep copy takes two updates on ``tiny_batch`` (the second reaches warm-started
        paths, e.g. a batch method revisiting its batch), predicts words and bounds, and is discarded, so this
        method's state and random generator are untouched and its numbers do not move. A method with nothing to
        compile may override it with a no-op.
        """
        from .evaluate import split_documents

        twin = copy.deepcopy(self)
        for _ in range(2):
            twin.partial_fit(tiny_batch)
            twin.after_update()
        observed, heldout = split_documents(tiny_batch.counts, 0.5, 0)
        if heldout.nnz:
            twin.predict_words(observed, heldout)
        twin.heldout_elbo(tiny_batch.counts)

    def heldout_extras(self, splits) -> dict[str, float]:
        """Extra held-out numbers for the trace, from the same document-completion splits the runner scores
        (e.g. LG-NMF's score of each grid point); optional. Columns ``x_<name>``."""
        return {}


# -- the registry -------------------------------------------------------------------------------
class PluginError(TypeError, ValueError):
    """A plugin file (``methods/*.py``, ``datasets/*.py``) that cannot be one: the message names the file.

    A ValueError too, so the CLI reports it as one ``topicbench: error: <file>: ...`` line (exit 2) and the
    workflow at DAG build, never as a traceback from inside the import machinery."""


# a hyperparameter or dataset-parameter name: a trace column (p_<name>), a run-folder component (<name>~<value>)
# and a --param NAME=VALUE on a command line
PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def global_generators() -> tuple:
    """The state of numpy's and Python's global random generators, which no seed sets: a plugin (method or recipe)
    draws from its own seeded generator, so the runner and prepare compare this before and after calling one."""
    import random

    legacy = np.random.get_state()
    return legacy[1].tobytes(), legacy[2:], random.getstate()


def plugin_file(plugin: type) -> Path:
    """The file a plugin class was loaded from (the workflow lists it among the inputs of the jobs that run it)."""
    return Path(sys.modules[plugin.__module__].__file__)


def _load_module(path: Path, module_name: str):
    module = sys.modules.get(module_name)
    if module is not None and Path(getattr(module, "__file__", "") or "").resolve() == path.resolve():
        return module
    if module is not None:  # a plugin of the same stem from another folder: never hand back that one's classes
        module_name = f"{module_name}_{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]}"
        if module_name in sys.modules:
            return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # a plugin that raises at import (a syntax error, a missing package, a bug)
        del sys.modules[module_name]
        where = f", line {err.lineno}" if isinstance(err, SyntaxError) and err.lineno else ""
        raise PluginError(f"{path}{where}: the plugin file cannot be loaded ({type(err).__name__}: {err})") from err
    return module


def _check_plugin_shape(plugin: type, path: Path) -> None:
    """``name`` a safe name and ``params`` a mapping of safe names to values of a supported type, naming the file."""
    name = plugin.name
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name):
        raise PluginError(f"{path}: plugin name {name!r} is not a safe name ({SAFE_RULES}): it becomes a folder, a "
                          f"job name and a command-line value")
    params = plugin.__dict__.get("params", getattr(plugin, "params", {}))
    if not isinstance(params, dict):
        raise PluginError(f"{path}: {name}.params must be a dict of parameter defaults, got {type(params).__name__}")
    declared = {}
    for cls in reversed(plugin.__mro__):
        declared.update(cls.__dict__.get("param_types", {}) or {})
    for key, default in params.items():
        if not isinstance(key, str) or not PARAM_NAME.fullmatch(key):
            raise PluginError(f"{path}: {name}.params has the name {key!r}, which is not a parameter name (letters, "
                              f"digits and '_', not starting with a digit): it becomes a trace column, a run-folder "
                              f"component and a --param NAME=VALUE")
        if key not in declared and not isinstance(default, (bool, int, float, str, type(None))):
            raise PluginError(f"{path}: {name}.params[{key!r}] defaults to {default!r} ({type(default).__name__}); a "
                              f"default is a bool, int, float or string, or declare its type in param_types")


def load_plugins(folder: Path, base: type, prefix: str) -> dict[str, type]:
    """Import every ``*.py`` in ``folder`` by path and collect the ``base`` subclasses it defines."""
    found: dict[str, type] = {}
    for path in sorted(Path(folder).glob("*.py")):
        if path.name.startswith("_"):
            continue
        module = _load_module(path, f"_topicbench_{prefix}_{path.stem}")
        classes = [obj for obj in vars(module).values()
                   if inspect.isclass(obj) and issubclass(obj, base) and obj.__module__ == module.__name__
                   and getattr(obj, "name", "")]
        if len(classes) != 1:
            raise PluginError(f"{path}: a plugin file defines exactly one {base.__name__} subclass with a name; "
                              f"found {len(classes)}")
        plugin = classes[0]
        _check_plugin_shape(plugin, path)
        if plugin.name in found:
            raise PluginError(f"{path}: plugin name {plugin.name!r} is already defined by "
                              f"{plugin_file(found[plugin.name])}")
        found[plugin.name] = plugin
    return found


_METHODS: dict[str, type[Method]] | None = None


def registry(folder: Path | None = None) -> dict[str, type[Method]]:
    global _METHODS
    if folder is not None:
        methods = load_plugins(folder, Method, "method")
        for method in methods.values():
            _check_contract(method)
        return methods
    if _METHODS is None:
        methods = load_plugins(METHODS_DIR, Method, "method")
        for method in methods.values():
            _check_contract(method)
        _METHODS = methods
    return _METHODS


def _check_contract(method: type[Method]) -> None:
    where = plugin_file(method)
    for attr in ("partial_fit", "predict_words", "topics", "state", "load_state"):
        if getattr(method, attr) is getattr(Method, attr):
            raise PluginError(f"{where}: method {method.name!r} does not implement {attr}()")
    if "K" not in method.params:
        raise PluginError(f"{where}: method {method.name!r}: params must declare K")
    for key in method.params:
        try:
            method.param_type(key)  # a None default without a declared type fails here, at registry load
        except TypeError as err:
            raise PluginError(f"{where}: {err}") from None
    try:  # every run starts from the defaults: defaults that fail the method's own checks make no run possible
        method.resolve_params({})
    except PluginError:
        pass  # a check_params that raises something else is a bug reported, naming the file, when a run resolves
    except ParamError as err:
        raise PluginError(f"{where}: method {method.name!r}: its params defaults fail its own check_params ({err}); "
                          f"fix the default in the file") from None


def get_method(name: str) -> type[Method]:
    methods = registry()
    if name not in methods:
        raise UnknownMethodError(f"unknown method {name!r}; available: {sorted(methods)}")
    return methods[name]
