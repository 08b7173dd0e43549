"""The dataset plugin contract and registry (``datasets/*.py``, loaded by path like ``methods/``).

A dataset file defines one subclass of :class:`Dataset` with a ``name``, a one-line
``description`` of what it stands in for, ``params`` (defaults, e.g. D for synthetic corpora)
and ``build(corpora_dir, **params) -> Corpus``. Real-corpus readers get their directory from
the config value ``corpora_dir`` and raise :class:`DatasetUnavailable` when it is missing.
"""
from __future__ import annotations

import contextlib
import inspect
import math
import numbers
import os
import re
import shutil
from pathlib import Path
from typing import Any, ClassVar

from .corpus import Corpus, CorpusError, is_corpus_dir, save_corpus
from .io import check_path_argument, file_sha256
from .method import (REPO_ROOT, SAFE_NAME, SAFE_RULES, PluginError, _check_underflow, global_generators, load_plugins,
                     plugin_file)

DATASETS_DIR = REPO_ROOT / "datasets"


class DatasetUnavailable(CorpusError):
    """A real corpus's source directory is missing (e.g. ``corpora_dir`` not present on this machine)."""


class Dataset:
    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Any]] = {}
    # the types a parameter accepts when its default does not say (a None default), or when None is allowed too
    param_types: ClassVar[dict[str, tuple]] = {}
    choices: ClassVar[dict[str, Any]] = {}  # a parameter's allowed values (a subset, a format), checked at DAG build
    synthetic: ClassVar[bool] = False

    @classmethod
    def resolve_params(cls, given: dict[str, Any]) -> dict[str, Any]:
        """Defaults overridden by ``given``; an unknown name or a value of the wrong type is an error naming it."""
        unknown = sorted(set(given) - set(cls.params))
        if unknown:
            raise CorpusError(f"dataset {cls.name}: unknown parameter(s) {unknown}; known: {sorted(cls.params)}")
        resolved = {**cls.params, **{key: cls._typed(key, value) for key, value in given.items()}}
        for key, value in resolved.items():  # ranges every recipe shares, checked before any file is read
            if key.endswith("seed") and isinstance(value, int) and not 0 <= value < 2**63:
                raise CorpusError(f"dataset {cls.name}: parameter {key} must be a seed in [0, 2**63), got {value}")
            if key == "test_fraction" and isinstance(value, float) and not 0 <= value < 1:
                raise CorpusError(f"dataset {cls.name}: parameter test_fraction must be in [0, 1), got {value}")
            if key in PATH_PARAMS and isinstance(value, str) and value.startswith("~"):  # neither shell nor YAML expands
                raise CorpusError(f"dataset {cls.name}: parameter {key} {value!r} starts with '~', which is not "
                                  f"expanded to the home folder here (it would be read from a folder named '~'); "
                                  f"give the full path")
        cls.check_params(resolved)
        return resolved

    @classmethod
    def check_params(cls, p: dict[str, Any]) -> None:
        """What resolved parameters must satisfy that reading no data can tell (each of ``choices``; a recipe adds its
        own, e.g. a parameter that applies to one format only): run by resolve_params, so at DAG build."""
        for key, allowed in cls.choices.items():
            if p[key] not in allowed:
                raise CorpusError(f"dataset {cls.name}: parameter {key} must be one of {sorted(allowed)}, got "
                                  f"{p[key]!r}")

    @classmethod
    def _typed(cls, key: str, value: Any, defaults: dict[str, Any] | None = None) -> Any:
        """``value`` checked against the type of the default (bool, int, float, str) or ``param_types``; ``defaults``
        replaces ``params`` for a recipe whose defaults depend on another parameter (planted_lda's ``like``).

        A number written as text ("1e3") is a number; a whole float (1000.0) is accepted for an int; nothing
        else is converted, so a value is never silently changed (2.5 for an int is an error, not 2).
        """
        default = (cls.params if defaults is None else defaults)[key]
        allowed = cls.param_types.get(key) or ((type(default),) if default is not None else (str, type(None)))
        if value is None and type(None) in allowed:
            return None
        if isinstance(value, str) and (int in allowed or float in allowed) and str not in allowed:
            try:  # "1e-400" is not 0: never a silently changed value
                _check_underflow(value.strip(), f"dataset {cls.name}: parameter {key}")
            except ValueError as err:
                raise CorpusError(str(err)) from None
            try:
                value = float(value) if not value.strip().lstrip("+-").isdigit() else int(value)
            except ValueError:
                pass
        for kind in allowed:
            if kind is bool and isinstance(value, bool):
                return value
            if kind is int and not isinstance(value, bool):
                if isinstance(value, numbers.Integral):
                    return int(value)
                if isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
                    return int(value)
            if kind is float and isinstance(value, numbers.Real) and not isinstance(value, bool):
                if not math.isfinite(value):
                    raise CorpusError(f"dataset {cls.name}: parameter {key} must be finite, got {value!r}")
                return float(value)
            if kind not in (bool, int, float, type(None)) and isinstance(value, kind):
                return value
        names = " or ".join("null" if k is type(None) else {bool: "true/false", int: "an integer", float: "a number",
                                                             str: "a string"}.get(k, k.__name__) for k in allowed)
        raise CorpusError(f"dataset {cls.name}: parameter {key} must be {names}, got {value!r} ({type(value).__name__})")

    @classmethod
    def source_dir(cls, corpora_dir: str | os.PathLike | None, sub: str) -> Path:
        if corpora_dir is None:
            raise DatasetUnavailable(f"dataset {cls.name}: needs corpora_dir (config value) to find {sub}/")
        check_path_argument(corpora_dir, f"dataset {cls.name}: corpora_dir", CorpusError)  # a build called directly
        path = Path(corpora_dir) / sub
        if not path.is_dir():
            raise DatasetUnavailable(f"dataset {cls.name}: source directory {path} does not exist (check corpora_dir)")
        return path

    @classmethod
    def other_sources(cls, corpora_dir: str | os.PathLike | None, params: dict[str, Any]) -> list[Path]:
        """The raw files a build reads that are neither under its ``source_dir`` folders nor named by a parameter
        (e.g. uci_bow's files, from corpora_dir/uci_bow/ or the download cache): fingerprinted as those are."""
        return []

    def build(self, corpora_dir: str | os.PathLike | None = None, **params) -> Corpus:
        raise NotImplementedError


_DATASETS: dict[str, type[Dataset]] | None = None


def registry() -> dict[str, type[Dataset]]:
    global _DATASETS
    if _DATASETS is None:
        _DATASETS = load_plugins(DATASETS_DIR, Dataset, "dataset")
    return _DATASETS


def get_dataset(name: str) -> type[Dataset]:
    datasets = registry()
    if name not in datasets:
        raise CorpusError(f"unknown dataset {name!r}; available: {sorted(datasets)}")
    return datasets[name]


def reads_corpora_dir(recipe: type[Dataset]) -> bool:
    """A recipe that reads a real corpus from ``corpora_dir`` (it calls ``source_dir``), not a synthetic one."""
    return not recipe.synthetic and "source_dir(" in inspect.getsource(recipe)


def uses_corpora_dir(recipe: type[Dataset]) -> bool:
    """Whether a prepare of ``recipe`` may read from ``corpora_dir``: a real corpus's folder (``source_dir``), a relative
    file parameter (user_text's path, a vocab_file), uci_bow's folder. A planted recipe (synthetic or semi-synthetic,
    ``Dataset.synthetic``) reads nothing there, so the workflow does not pass it: moving corpora_dir re-prepares none."""
    return not recipe.synthetic


def source_dirs(recipe: type[Dataset]) -> list[str]:
    """The folders under ``corpora_dir`` a real recipe reads (its ``source_dir(corpora_dir, "<sub>")`` calls)."""
    return re.findall(r"source_dir\(\s*corpora_dir\s*,\s*[\"']([^\"']+)[\"']", inspect.getsource(recipe))


# the recipe parameters that name a file to read (user_text's path, user_bow's path and vocab, a fixed vocab_file)
PATH_PARAMS = ("path", "vocab", "vocab_file")


def missing_path_params(params: dict[str, Any], corpora_dir=None) -> list[tuple[str, Path]]:
    """(parameter, path) of each file parameter whose path names nothing readable: missing, a dangling link or a loop
    of links, or under a corpora_dir that is not mounted."""
    missing = []
    for key in PATH_PARAMS:
        value = params.get(key)
        if isinstance(value, str) and value:
            path = param_path(value, corpora_dir)
            try:
                path.stat()
            except (OSError, RuntimeError):
                missing.append((key, path))
    return missing


def param_path(value: str, corpora_dir=None) -> Path:
    """The file a parameter names (user_text's ``path``, a ``vocab_file``): as given when absolute, else under
    ``corpora_dir`` when there is one, else under the current folder. One rule for every path parameter, so one
    config reads the same files from any working directory."""
    path = Path(value)
    return path if path.is_absolute() or not corpora_dir else Path(corpora_dir) / path


def input_paths(params: dict[str, Any], corpora_dir=None) -> list[Path]:
    """The existing files and folders named by string parameters, found by :func:`param_path`."""
    found = []
    for value in params.values():
        if isinstance(value, str) and value and os.path.lexists(param_path(value, corpora_dir)):
            found.append(param_path(value, corpora_dir))
    return found


def source_files(recipe: type[Dataset], params: dict[str, Any], corpora_dir=None) -> dict[str, Path]:
    """The raw files a prepare reads, by the name recorded in corpus.json: every file under the recipe's folders of
    ``corpora_dir``, every file a parameter names and the recipe's :meth:`Dataset.other_sources`, relative to
    ``corpora_dir`` when inside it (so another copy of corpora_dir holding the same bytes is the same source), else
    absolute. A recipe that reads nothing from corpora_dir (:func:`uses_corpora_dir`) has none there, whether or not
    one is given (the workflow passes it none; a DAG build compares with the config's)."""
    corpora_dir = corpora_dir if uses_corpora_dir(recipe) else None
    roots = input_paths(params, corpora_dir) + recipe.other_sources(corpora_dir, params)
    if corpora_dir is not None and reads_corpora_dir(recipe):
        roots += [Path(corpora_dir) / sub for sub in source_dirs(recipe)]
    found: dict[str, Path] = {}
    for root in roots:
        for path in (_files_under(root) if root.is_dir() else [root] if root.is_file() else []):
            found[_source_name(path, corpora_dir)] = path.resolve()
    return found


def _files_under(folder: Path) -> list[Path]:
    """Every file below ``folder``, through symbolic links to folders too (as the readers follow them: a document read
    through one is a source file), each folder once (a loop, or a second way to a folder, is not walked again). A
    folder that cannot be listed is an error naming it: passed over, its files would be missing from the fingerprint."""
    def unreadable(err: OSError):
        raise CorpusError(f"{err.filename}: a folder under {folder} that cannot be read ({err.strerror or err}); "
                          f"its files would be missing from the record of what the corpus is made from") from err

    files, seen = [], {folder.resolve()}
    for root, dirs, names in os.walk(folder, followlinks=True, onerror=unreadable):
        for d in sorted(dirs, key=lambda d: (os.path.islink(os.path.join(root, d)), d)):
            target = Path(root, d).resolve()
            if target in seen:
                dirs.remove(d)
            else:
                seen.add(target)
        dirs.sort()
        files += [Path(root, name) for name in names if Path(root, name).is_file()]
    return sorted(files)


def _source_name(path: Path, corpora_dir) -> str:
    """A source file's name in corpus.json: relative to corpora_dir as found under it (a file linked in from
    elsewhere keeps its name there, whether the two are spelt relative or absolute), else its absolute path."""
    if corpora_dir is not None:
        for inside, base in ((Path(os.path.abspath(path)), Path(os.path.abspath(corpora_dir))),
                             (path.resolve(), Path(corpora_dir).resolve())):
            if base in inside.parents:
                return str(inside.relative_to(base))
    return str(path.resolve())


def source_record(files: dict[str, Path]) -> dict[str, dict]:
    """{name: size, mtime_ns, sha256} of a prepare's raw files: corpus.json's fingerprint of what it was made from."""
    record = {}
    for name, path in files.items():
        stat = path.stat()
        record[name] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": file_sha256(path)}
    return record


def source_changes(record: dict, files: dict[str, Path]) -> str | None:
    """What differs between the raw files a corpus was prepared from (its ``source_record``) and ``files`` now, or
    None. A file whose size and mtime match is taken as unchanged; any other is compared by its sha256."""
    added, gone = sorted(set(files) - set(record)), sorted(set(record) - set(files))
    if added or gone:
        return f"source file {(added or gone)[0]} {'added' if added else 'gone'} since it was prepared"
    for name, path in files.items():
        was = record[name]
        try:
            stat = path.stat()
        except OSError:
            return f"source file {name} unreadable"
        if (stat.st_size, stat.st_mtime_ns) == (was.get("size"), was.get("mtime_ns")):
            continue
        if stat.st_size != was.get("size") or file_sha256(path) != was.get("sha256"):
            return f"source file {name} changed since it was prepared"
    return None


def check_out_dir(out_dir: str | os.PathLike, inputs: list[Path] = (), corpora_dir=None) -> Path:
    """Refuse an ``--out`` whose replacement could lose or mix data; returns it resolved (symlinks followed).

    Refused: the current folder, any folder above it, the home folder, ``/``; a folder that is or holds an
    input of this prepare (a file or folder named in the parameters, or ``corpora_dir``), or lies inside an
    input folder named in the parameters; an existing file; a symbolic link (its target would be replaced);
    and a non-empty folder that is not a topicbench corpus (its corpus.json) or the remains of one (its data
    files and nothing else: what Snakemake leaves after deleting corpus.json, the rule's output, before
    re-running the rule).
    """
    from .corpus import (COUNTS_DIR, DOCS_FILE, LEGACY_COUNTS_FILE, META_FILE, TRUTH_FILE, VOCAB_FILE,
                         foreign_counts_entries)

    given = Path(out_dir)
    out = _resolve(given, "--out")
    refuse = lambda why: CorpusError(f"{given}: refusing to write the corpus here: {why}")  # noqa: E731
    cwd, home = Path.cwd().resolve(), Path.home().resolve()
    if out == home or out == Path(out.anchor):
        raise refuse("it is the home folder or the file-system root")
    if out == cwd or out in cwd.parents:
        raise refuse("it is the current folder or one above it, which prepare would replace")
    for inp in [*inputs, *([Path(corpora_dir)] if corpora_dir else [])]:
        real = _resolve(inp, "--corpora-dir" if corpora_dir and inp == Path(corpora_dir) else "a path parameter")
        if real == out or out in real.parents:
            raise refuse(f"it is or holds an input of this prepare ({inp}), which replacing it would delete")
    for inp in inputs:
        if inp.resolve().is_dir() and inp.resolve() in out.parents:
            raise refuse(f"it lies inside the input folder {inp}: the corpus would mix with its input")
    inside = next((folder for folder in out.parents if is_corpus_dir(folder)), None)
    if inside is not None:  # as a run's --out: the outer corpus would hold a folder that is not its own
        raise refuse(f"it lies inside the corpus folder {inside}, which preparing that corpus again would have to "
                     f"replace with it; give a folder outside it")
    if out.exists() and not out.is_dir():
        raise refuse("it exists and is not a folder")
    ancestor = out.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():  # (the folder's creation would say only 'File exists')
        raise refuse(f"{ancestor} is a file, not a folder")
    if given.is_symlink():  # the swap would replace the folder behind the link, wherever it is (as run's --out)
        raise refuse(f"it is a symbolic link to {out}, which replacing would rewrite in place; name that folder "
                     f"itself, or remove the link")
    if out.is_dir():
        try:
            entries = sorted(os.listdir(out))
        except OSError as err:
            raise refuse(f"cannot list it ({err})") from err
        ours = {LEGACY_COUNTS_FILE, VOCAB_FILE, DOCS_FILE, META_FILE, TRUTH_FILE}
        # Snakemake deletes a rule's output (corpus.json) before re-running it: the data files (the counts
        # folder or the older counts.npz) and nothing foreign beside them are what a corpus leaves then
        foreign = [e for e in entries if not ((e in ours and (out / e).is_file()) or (e == COUNTS_DIR and (out / e).is_dir()))]
        foreign += foreign_counts_entries(out)  # inside counts/, which goes with the corpus too
        remains = (not foreign and {VOCAB_FILE, DOCS_FILE} <= set(entries)
                   and bool({COUNTS_DIR, LEGACY_COUNTS_FILE} & set(entries)))
        if foreign and is_corpus_dir(out):  # replacing the corpus replaces the whole folder, these with it
            raise refuse(f"it is a corpus that also holds {', '.join(map(repr, foreign[:5]))}, which replacing it "
                         f"would delete; move them out first")
        if entries and not is_corpus_dir(out) and not remains:
            if not foreign:  # ours only, some data files gone
                raise refuse(f"it is not a topicbench corpus: it holds only files named as a corpus's ("
                             f"{', '.join(entries)}) without the rest of its data (vocab.txt, docs.parquet, counts/), "
                             f"so it is a damaged corpus or files of your own, which prepare cannot tell apart; choose "
                             f"another folder, or remove this one if it holds nothing of yours")
            raise refuse(f"it is a non-empty folder that is not a topicbench corpus ({len(entries)} entries, e.g. "
                         f"{foreign[0]!r}); choose a new or empty folder")
    return out


def _resolve(path: Path, what: str) -> Path:
    """``path`` with its symbolic links followed; a loop of links is a CorpusError naming it (pathlib raises a bare
    RuntimeError, a traceback naming neither the flag nor the cure)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as err:
        raise CorpusError(f"{what} {str(path)!r}: cannot follow its symbolic links ({err}); remove the loop or "
                          f"name the folder itself") from None


@contextlib.contextmanager
def _named_recipe(recipe: type[Dataset], call: str):
    """An exception from a recipe's ``build``/``write`` named with its file: the refusals of data (CorpusError, OSError,
    a text's UnicodeError) and MemoryError pass unchanged, anything else is the file's bug (a plain ValueError keeps
    its message behind the same prefix)."""
    try:
        yield
    except (CorpusError, PluginError, OSError, MemoryError, UnicodeError):
        raise
    except Exception as err:
        raise PluginError(f"{plugin_file(recipe)}: dataset {recipe.name}.{call} raised {type(err).__name__} ({err}); "
                          f"nothing was written") from err


def _check_own_generator(recipe: type[Dataset], before: tuple) -> None:
    """A recipe draws from a generator seeded by its parameters: one drawing from a global generator writes another
    corpus at each prepare of the same parameters (and every run on it another corpus_sha256)."""
    if global_generators() != before:
        raise PluginError(f"{plugin_file(recipe)}: dataset {recipe.name} drew from numpy's or Python's global random "
                          f"generator (np.random.*, random.*), which its parameters do not seed, so the same "
                          f"parameters would not give the same corpus; draw from np.random.default_rng(<a seed "
                          f"parameter>); nothing was written")


def prepare_provenance(dataset_cls: type[Dataset]) -> dict[str, str]:
    """What a prepare records of the code that ran it (corpus.json's ``prepared_by``), as a trace row does of its fit:
    git_sha, the package versions, host, the recipe file's and package's code_sha256 and the third-party packages the
    recipe imports (``method_packages``), so a benchmarks.csv row of the prepare names its code."""
    from .method import plugin_file
    from .run import code_fingerprint, method_packages, provenance

    plugin = plugin_file(dataset_cls)
    return {**provenance(), "code_sha256": code_fingerprint(plugin), "method_packages": method_packages(plugin)}


# the least a document takes in a prepared corpus: its row pointer (int64) and one (word, count) pair (int32 each)
MIN_DOC_BYTES = 16


def _check_room(dataset_cls, resolved: dict, out_dir: Path) -> None:
    """A planted corpus of n_train + n_test documents is refused before it is generated if even MIN_DOC_BYTES a
    document exceed the free space where it is written (n_train=1e15 would otherwise generate until the disk fills)."""
    n_docs = sum(int(resolved.get(key) or 0) for key in ("n_train", "n_test"))
    if not n_docs:
        return
    folder = Path(out_dir).absolute()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    free = shutil.disk_usage(folder).free
    if n_docs * MIN_DOC_BYTES > free:
        raise CorpusError(f"dataset {dataset_cls.name}: n_train + n_test = {n_docs:,} documents need at least "
                          f"{_size(n_docs * MIN_DOC_BYTES)} in {folder}, more than its {_size(free)} free; lower "
                          f"n_train or n_test, or free some space")


def _size(n_bytes: int) -> str:
    """A size in the largest unit that still shows it (a nearly full disk: '2,400 bytes', not '0.0 GiB')."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:,.1f} {unit}"
    return f"{n_bytes:,} bytes"


def prepare(name: str, out_dir: str | os.PathLike, corpora_dir=None, corpus_name: str | None = None, **params) -> Path:
    """Build a dataset and save it as a corpus directory (atomically); ``corpus_name`` overrides the recorded name.

    Parameters are checked (names, types) and ``out_dir`` is checked (:func:`check_out_dir`) before any work;
    a corpus with no documents, or none in the train split, is an error naming the source.
    """
    check_path_argument(out_dir, "out_dir", CorpusError)  # before the recipe is even looked up
    check_path_argument(corpora_dir, "corpora_dir", CorpusError)
    dataset_cls = get_dataset(name)
    if corpus_name is not None and not SAFE_NAME.fullmatch(corpus_name):  # the runs' dataset column, job names
        raise CorpusError(f"--name {corpus_name!r} is not a safe corpus name ({SAFE_RULES})")
    resolved = dataset_cls.resolve_params(params)
    out_dir = check_out_dir(out_dir, input_paths(resolved, corpora_dir), corpora_dir)
    _check_room(dataset_cls, resolved, out_dir)
    generators = global_generators()
    prepared_by = prepare_provenance(dataset_cls)
    if hasattr(dataset_cls, "write"):  # streams to disk (paper-scale synthetic corpora) with the same bytes
        with _named_recipe(dataset_cls, "write"):
            written = Path(dataset_cls().write(out_dir, corpora_dir=corpora_dir, corpus_name=corpus_name,
                                               extra_meta={"prepared_by": prepared_by}, **resolved))
        _check_own_generator(dataset_cls, generators)
        return written
    # the raw files' fingerprint, taken before they are read and checked after: corpus.json names what it was made
    # from, and a later workflow re-prepares a corpus whose source changed (grid.stale_corpora)
    sources = source_files(dataset_cls, resolved, corpora_dir)
    record = source_record(sources)
    with _named_recipe(dataset_cls, "build"):
        corpus = dataset_cls().build(corpora_dir=corpora_dir, **resolved)
    if not isinstance(corpus, Corpus):
        raise PluginError(f"{plugin_file(dataset_cls)}: dataset {name}.build returned {type(corpus).__name__}, not a "
                          f"topicbench.corpus.Corpus; nothing was written")
    _check_own_generator(dataset_cls, generators)
    changed = source_changes(record, sources)
    if changed:
        raise CorpusError(f"dataset {name}: {changed.replace('since it was prepared', 'while it was read')}; nothing "
                          f"was written, prepare again")
    # a file the build itself brought (a verified download into the cache) is recorded as it now is
    fetched = {n: p for n, p in source_files(dataset_cls, resolved, corpora_dir).items()
               if n not in sources and p in {q.resolve() for q in dataset_cls.other_sources(corpora_dir, resolved)}}
    record.update(source_record(fetched))
    source = corpus.meta.get("source") or name
    inputs = [str(p) for p in input_paths(resolved, None)]
    named = f"dataset {name} ({', '.join(inputs) or source})"
    if corpus.n_docs == 0:
        raise CorpusError(f"{named}: no documents to prepare (empty source, or every document dropped)")
    if "split" in corpus.docs.columns and not (corpus.docs["split"] == "train").any():
        raise CorpusError(f"{named}: no document in the train split ({corpus.n_docs} documents, all test)")
    if corpus_name:
        corpus.meta["name"] = corpus_name
    corpus.meta.setdefault("name", name)
    corpus.meta.setdefault("dataset_params", resolved)
    corpus.meta["corpora_dir"] = str(Path(corpora_dir).resolve()) if corpora_dir is not None else None
    corpus.meta["source_files"] = record
    corpus.meta["dataset_recipe"] = dataset_cls.name  # what stale_corpora compares with the config, beside the params
    corpus.meta["prepared_by"] = prepared_by
    try:
        return save_corpus(corpus, out_dir)
    except CorpusError as err:  # counts, vocabulary or docs the writer refuses: the recipe built them, so name it too
        raise CorpusError(f"{err} (in the corpus dataset {name} built: {plugin_file(dataset_cls)})") from err
