"""Experiments in the config, expanded into runs and validated before any job starts.

An experiment (workflow/config/*.yaml, ``experiments:``) names its datasets, seeds, shared run
settings and a list of run groups. Each group has a ``label``, a ``method``, a ``grid`` (lists of
hyperparameter values; the product is taken) and optional ``settings`` overriding the shared ones.
Every grid point is checked against its method's ``check_params`` here, at DAG-building time,
so an impossible grid fails in seconds, not after hours of compute.
"""
from __future__ import annotations

import contextlib
import errno
import itertools
import math
import os
import tempfile
from pathlib import Path
from dataclasses import fields
from typing import Any

from . import previous
from .method import SAFE_NAME, SAFE_RULES, SAFE_VALUE, check_yaml11_number, coerce, get_method
from .run import RUN_FILES, RunSpec
from .streams import StreamError, make_holdout

SETTING_NAMES = {f.name for f in fields(RunSpec)} - {"method", "params", "seed", "experiment", "dataset", "threads", "label"}
# the settings that decide what a score measures (which documents and tokens are held out, and how)
SCORING_SETTINGS = ("holdout", "holdout_n", "observed_fraction", "folds", "eval_seed", "max_test_docs")


class GridError(ValueError):
    """An experiment in the config cannot be expanded into valid runs."""


def format_value(value: Any) -> str:
    """A value as run folders name it: %g for a float %g writes exactly (every name before this rule), else the
    shortest text that reads back as the same float, so two grid values that agree to 6 digits name two runs; an
    exponent without its '+' (refused as a folder name before, so no existing folder is renamed)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        text = f"{value:g}"
        text = repr(value) if math.isfinite(value) and float(text) != value else text
        return text.replace("e+", "e")  # '+' is no folder-name character: 1e+20 names its folder 1e20
    return str(value)


# a folder name is at most 255 bytes on common file systems; a component also gets a prefix (label~, K~) or a
# staging suffix (.<name>.staging-<pid>): a longer name would fail at the job's mkdir, after other jobs' compute
MAX_COMPONENT = 200


def _safe_component(what: str, text: str, pattern=SAFE_NAME) -> str:
    """A name or formatted value that becomes one path component under results_dir (never '/', '..' or '.x'); a
    name (not a value, which follows its ``<name>~``) also reaches command lines, so it never starts with '-'."""
    if not isinstance(text, str) or not pattern.fullmatch(text):
        rules = (SAFE_RULES if pattern is SAFE_NAME else
                 "letters, digits, '_', '.', '-' (ASCII); no leading or trailing dot")
        raise GridError(f"{what} {text!r} is not a safe name: use {rules} (it becomes a folder under "
                        f"results_dir{'' if pattern is SAFE_VALUE else ' and a command-line value'})")
    if len(text) > MAX_COMPONENT:
        raise GridError(f"{what} {text[:40]!r}... is {len(text)} characters, over {MAX_COMPONENT} (it becomes a "
                        f"folder name, which the file system limits to 255 bytes with its prefix or staging suffix)")
    return text


def run_id(experiment: str, dataset: str, method: str, label: str, params: dict, seed: int) -> str:
    """``<experiment>/<dataset>/<method>/label~<l>/<param~value/...>/seed~<s>`` (DESIGN.md, "Runner outputs")."""
    parts = [experiment, dataset, method, f"label~{label}"]
    parts += [f"{key}~{_safe_component(f'value of {key!r}', format_value(params[key]), SAFE_VALUE)}" for key in sorted(params)]
    parts.append(f"seed~{seed}")
    return "/".join(parts)


def _distinct(what: str, values: list) -> None:
    seen = []
    for value in values:
        if any(value == old and type(value) is type(old) for old in seen):
            raise GridError(f"{what} lists {value!r} twice")
        seen.append(value)


def expand_experiment(name: str, experiment: dict, datasets: dict) -> dict[str, dict]:
    """{run_id: {"dataset", "spec": RunSpec fields}} for one experiment."""
    _safe_component("experiment name", name)
    if not isinstance(experiment, dict):
        raise GridError(f"experiment {name}: must be a mapping, got {experiment!r}")
    runs: dict[str, dict] = {}
    if "dataset" in experiment and "datasets" in experiment:
        raise GridError(f"experiment {name}: give either dataset or datasets, not both")
    exp_datasets = experiment.get("datasets") or ([experiment["dataset"]] if "dataset" in experiment else [])
    if not exp_datasets:
        raise GridError(f"experiment {name}: names no dataset")
    _distinct(f"experiment {name}: datasets", exp_datasets)
    for dataset in exp_datasets:
        if dataset not in datasets:
            raise GridError(f"experiment {name}: dataset {dataset!r} is not defined under datasets: (known: {sorted(datasets)})")
    seeds = experiment.get("seeds", [0])
    if not isinstance(seeds, list) or not seeds:
        raise GridError(f"experiment {name}: seeds must be a non-empty list, got {seeds!r}")
    try:
        seeds = [coerce(seed, int, f"experiment {name}: seed") for seed in seeds]
    except ValueError as err:
        raise GridError(str(err)) from None
    if any(seed < 0 for seed in seeds):
        raise GridError(f"experiment {name}: seeds must be >= 0, got {seeds}")
    _distinct(f"experiment {name}: seeds", seeds)
    shared = dict(experiment.get("settings") or {})
    labels = set()
    groups = experiment.get("runs")
    if not isinstance(groups, list) or not groups:
        raise GridError(f"experiment {name}: runs must be a non-empty list of run groups, got {groups!r}")
    for group in groups:
        label = group.get("label", group.get("method"))
        _safe_component(f"experiment {name}: run label", label)
        if label in labels:
            raise GridError(f"experiment {name}: run label {label!r} appears twice")
        labels.add(label)
        try:
            method_cls = get_method(group.get("method"))
        except KeyError as err:
            raise GridError(f"experiment {name}, run {label}: {err}") from None
        settings = {**shared, **(group.get("settings") or {})}
        unknown = sorted(set(settings) - SETTING_NAMES)
        if unknown:
            raise GridError(f"experiment {name}, run {label}: unknown run setting(s) {unknown}; known: {sorted(SETTING_NAMES)}")
        grid = group.get("grid") or {}
        unknown = sorted(set(grid) - set(method_cls.params))
        if unknown:
            raise GridError(f"experiment {name}, run {label}: unknown hyperparameter(s) {unknown} for method "
                            f"{method_cls.name}; known: {sorted(method_cls.params)}")
        for key, values in grid.items():
            if not isinstance(values, list) or not values:
                raise GridError(f"experiment {name}, run {label}: grid axis {key!r} must be a non-empty list, got {values!r}")
            _distinct(f"experiment {name}, run {label}: grid axis {key!r}", values)
        keys = sorted(grid)
        for combo in itertools.product(*(grid[k] for k in keys)):
            params = dict(zip(keys, combo))
            for dataset in exp_datasets:
                for seed in seeds:
                    try:
                        spec = RunSpec(method=group["method"], params=params, seed=seed, experiment=name,
                                       dataset=dataset, label=label, **settings)
                        spec.check()  # converts the given hyperparameters to their declared types
                    except (ValueError, KeyError) as err:
                        raise GridError(f"experiment {name}, run {label}, grid point {params}: {err}") from None
                    rid = run_id(name, dataset, method_cls.name, label, spec.params, seed)
                    if rid in runs:
                        raise GridError(f"experiment {name}, run {label}: grid points {params} and "
                                        f"{runs[rid]['spec'].params} are the same run ({rid})")
                    runs[rid] = {"dataset": dataset, "label": label, "spec": spec}
    if not runs:
        raise GridError(f"experiment {name}: expands to no runs")
    # an experiment's figures set its runs' scores side by side: one scoring protocol for all of them
    first = next(iter(runs.values()))
    for run in runs.values():
        for setting in SCORING_SETTINGS:
            if getattr(run["spec"], setting) != getattr(first["spec"], setting):
                raise GridError(f"experiment {name}: run {run['label']} scores with {setting}="
                                f"{getattr(run['spec'], setting)!r} but run {first['label']} with "
                                f"{getattr(first['spec'], setting)!r}; its figures would compare scores of different "
                                f"protocols (set it under the experiment's settings, or split the experiment)")
    return runs


def check_datasets(datasets: dict, used: set[str] = frozenset(), corpora_dir: str | None = None) -> None:
    """Every dataset entry names a known recipe with known parameters, and every dataset an experiment uses
    that reads a real corpus finds ``corpora_dir``: before any job (DAG build), not in the prepare job."""
    from .dataset import get_dataset, input_paths, missing_path_params, reads_corpora_dir, source_dirs

    for name, entry in datasets.items():
        _safe_component("dataset name", name)
        try:
            recipe = get_dataset(entry["recipe"])
            resolved = recipe.resolve_params(dict(entry.get("params") or {}))
            if recipe.synthetic and hasattr(recipe, "recipe"):  # its ranges (n_train >= 1, temperature > 0, ...),
                recipe().recipe(**resolved).check()                # data-free: here, not in the prepare job
        except (ValueError, KeyError, TypeError) as err:
            raise GridError(f"dataset {name}: {err}") from None
        for key, value in resolved.items():  # a file it names is a prepare input, where Snakemake reads {x}
            if isinstance(value, str) and any(b in value for b in "{}") and input_paths({key: value}, corpora_dir):
                raise GridError(f"dataset {name}: parameter {key} {value!r} names a file whose path holds a brace, "
                                f"which Snakemake reads as a wildcard in the prepare job's inputs; rename it")
            if isinstance(value, str) and control_character(value) and input_paths({key: value}, corpora_dir):
                raise GridError(f"dataset {name}: parameter {key} {value!r} names a file whose path holds a control "
                                f"character ({control_character(value)!r}), which breaks the prepare job's logs and "
                                f"path lists; rename it")
        gone = missing_path_params(resolved, corpora_dir) if name in used else []
        if gone:  # found in the prepare job, after Snakemake deleted the old corpus's corpus.json
            key, path = gone[0]
            raise GridError(f"dataset {name}: parameter {key} {resolved[key]!r} names no readable file ({str(path)!r} "
                            f"is missing, a dangling link, or under a corpora_dir that is not there); fix the path")
        if name in used and reads_corpora_dir(recipe):
            missing = [sub for sub in source_dirs(recipe) if not (Path(corpora_dir or ".") / sub).is_dir()]
            if not (corpora_dir and Path(corpora_dir).is_dir()) or missing:
                where = (f"corpora_dir {corpora_dir!r} has no folder {missing[0]}/" if corpora_dir and missing
                         and Path(corpora_dir).is_dir() else f"corpora_dir {corpora_dir!r} is not a folder"
                         if corpora_dir else "the config sets no corpora_dir")
                raise GridError(f"dataset {name} (recipe {recipe.name}) reads a real corpus from corpora_dir, but "
                                f"{where} (DatasetUnavailable)")


def check_config_file(path) -> None:
    """A YAML config file without duplicate keys (PyYAML keeps the last silently: a duplicated experiment
    name or grid axis would drop the first)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    def mapping(loader, node):
        seen = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = loader.construct_object(key_node)
            if key in seen:
                raise GridError(f"{path}, line {key_node.start_mark.line + 1}: key {key!r} appears twice in one "
                                f"mapping (first on line {seen[key]})")
            seen[key] = key_node.start_mark.line + 1
        return loader.construct_mapping(node)

    def number(loader, node):  # a plain scalar YAML 1.1 reads as another number than it shows (010 is 8)
        if node.style is None:
            try:
                check_yaml11_number(node.value, f"{path}, line {node.start_mark.line + 1}")
            except ValueError as err:
                raise GridError(str(err)) from None
        return loader.construct_yaml_int(node) if node.tag.endswith(":int") else loader.construct_yaml_float(node)

    def boolean(loader, node):  # yes/no/on/off: booleans in YAML 1.1 only (a dataset named `no` would be False)
        if node.style is None:
            try:
                check_yaml11_number(node.value, f"{path}, line {node.start_mark.line + 1}")
            except ValueError as err:
                raise GridError(str(err)) from None
        return loader.construct_yaml_bool(node)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    StrictLoader.add_constructor("tag:yaml.org,2002:int", number)
    StrictLoader.add_constructor("tag:yaml.org,2002:float", number)
    StrictLoader.add_constructor("tag:yaml.org,2002:bool", boolean)
    with open(path, encoding="utf-8") as handle:
        yaml.load(handle, Loader=StrictLoader)


def control_character(text: str) -> str | None:
    """The first control character (U+0000-U+001F, U+007F-U+009F: a line break, a tab) in ``text``, or None."""
    return next((ch for ch in text if ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F), None)


def check_paths(config: dict, runs: dict) -> None:
    """results_dir and data_dir are folders (or absent), and no run or corpus path leaves them."""
    for key in ("results_dir", "data_dir", "corpora_dir"):  # the workflow writes f"{results_dir}/runs/...": with ""
        if key in config and config[key] is not None and not str(config[key]).strip():  # that is /runs/..., the root
            raise GridError(f"{key} is empty ({config[key]!r}): every path under it would start at the file-system "
                            f"root; give a folder, or '.' for the working directory")
        # YAML and Snakemake do not expand ~: a folder named ~ in the working directory, one `rm -rf ~` from loss
        if str(config.get(key) or "").startswith("~"):
            raise GridError(f"{key} {config[key]!r} starts with '~', which is not expanded to the home folder here "
                            f"(it would be a folder named '~'); give the full path")
        char = control_character(str(config.get(key) or ""))  # a pasted line break or tab: Snakemake only warns
        if char:
            raise GridError(f"{key} {config[key]!r} holds a control character ({char!r}), which breaks every log "
                            f"and path list that names a file under it; rename the folder")
        if any(brace in str(config.get(key) or "") for brace in "{}"):  # Snakemake reads {...} as a wildcard
            raise GridError(f"{key} {config[key]!r} holds a brace, which Snakemake reads as a wildcard in every "
                            f"output path under it; rename the folder")
    for key in ("results_dir", "data_dir"):
        root = Path(config[key])
        if root.exists() and not root.is_dir():
            raise GridError(f"{key} {str(root)!r} is a file, not a folder")
        _check_writable(key, root)
    # a folder the workflow replaces as a whole (a corpus, a run) or the shared corpora must not hold the other
    # output folder: a prepare or a run swap would take its files along, and corpora_dir is read-only input
    owners = [("data_dir", Path(config["data_dir"]) / "corpora"), ("results_dir", Path(config["results_dir"]) / "runs")]
    if config.get("corpora_dir"):
        owners.append(("corpora_dir", Path(config["corpora_dir"])))
    for key in ("results_dir", "data_dir"):
        for owner, folder in owners:
            if owner != key and _inside(config[key], folder):
                raise GridError(f"{key} {config[key]!r} lies inside {owner}'s {str(folder)!r} (as spelt or through a "
                                f"symbolic link): give folders apart from each other")
    from .dataset import input_paths

    for name, entry in (config.get("datasets") or {}).items():  # a folder read as a corpus (user_text's path=<folder>)
        for folder in [p for p in input_paths(entry.get("params") or {}, config.get("corpora_dir")) if p.is_dir()]:
            for key in ("results_dir", "data_dir"):  # would read the workflow's own outputs, and change with them
                if _inside(config[key], folder):
                    raise GridError(f"dataset {name}: its input folder {str(folder)!r} holds {key} {config[key]!r}: "
                                    f"the corpus would read the workflow's outputs; give folders apart")
    if config.get("corpora_dir"):  # the raw corpora inside a folder a prepare or a run replaces, or fills
        for owner, folder in owners[:2]:
            if _inside(config["corpora_dir"], folder):
                raise GridError(f"corpora_dir {config['corpora_dir']!r} lies inside {owner}'s {str(folder)!r}, where "
                                f"the workflow replaces what it writes: keep the raw corpora apart from its outputs")
    targets = [("results_dir", Path(config["results_dir"]) / "runs" / rid) for rid in runs]
    targets += [("data_dir", Path(config["data_dir"]) / "corpora" / name) for name in config.get("datasets", {})]
    links: dict[Path, bool] = {}
    for key, path in targets:
        root = os.path.abspath(config[key])
        if os.path.commonpath([root, os.path.abspath(path)]) != root:
            raise GridError(f"{path} would be written outside {key} {config[key]!r}")
        # Snakemake deletes a job's old outputs and the job replaces its folder: through a symbolic link below
        # results_dir/data_dir both would reach a folder kept elsewhere (a corpus linked in to skip a prepare)
        for depth in range(1, len(path.parts) - len(Path(config[key]).parts) + 1):
            part = Path(*path.parts[:len(Path(config[key]).parts) + depth])
            if links.setdefault(part, part.is_symlink()):
                raise GridError(f"{part} is a symbolic link (to {os.path.realpath(part)}); the workflow deletes and "
                                f"replaces what it writes there, which would reach through the link: remove it, or "
                                f"point {key} elsewhere")


def _inside(path, folder) -> bool:
    """``path`` is ``folder`` or lies below it, as spelt or with symbolic links followed (a link into a folder the
    workflow replaces is inside it too)."""
    return any(os.path.commonpath([inner, outer]) == outer for inner in {os.path.abspath(path), os.path.realpath(path)}
               for outer in {os.path.abspath(folder), os.path.realpath(folder)})


def _probe_write(folder) -> None:
    """Write 4 KiB to a new file in ``folder``, sync it and remove it: OSError if the folder takes no file (read-only) or
    not its bytes (a full disk fails the write, a short write or, at the latest, the sync)."""
    fd, probe = tempfile.mkstemp(dir=folder, prefix=".topicbench-probe-")
    try:
        block = b"\0" * 4096
        if os.write(fd, block) != len(block):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.fsync(fd)
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(probe)


def _check_writable(key: str, root: Path) -> None:
    """``root`` exists as a folder we can write in, or can be made: found at DAG build, not as a traceback from the
    workflow's onstart (or a failed job) after other jobs ran. The nearest existing ancestor must be a folder that
    takes a file (a probe file of 4 KiB, removed at once; read-only places such as /proc refuse it even to root, a full
    disk its bytes)."""

    folder = root.absolute()
    while not os.path.lexists(folder) and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise GridError(f"{key} {str(root)!r} cannot be made: {str(folder)!r} is not a folder")
    try:
        _probe_write(folder)  # a full disk takes the name but not the bytes (then: the onstart's bare ENOSPC)
    except OSError as err:
        raise GridError(f"{key} {str(root)!r} is not writable: nothing can be written in {str(folder)!r} "
                        f"({err.strerror or err})") from None


TEMP_VARIABLES = ("TMPDIR", "TMP", "TEMP")


def check_workflow_profile(argv: list[str], basedir, cwd=None) -> None:
    """A ``--workflow-profile`` Snakemake does not find is a GridError naming it: Snakemake then runs without any
    workflow profile, saying nothing (``--workflow-profile profiles/ci`` from outside the repository would run the
    default job instead of the ci one). Snakemake looks for it as given and as profiles/<it> in the folder it was
    started from, and in profiles/ beside the Snakefile; under -d/--directory that folder is no longer known, so a
    relative profile is then given the benefit of the doubt."""
    flags = [(arg, argv[i + 1] if i + 1 < len(argv) else "") for i, arg in enumerate(argv)
             if arg in ("--workflow-profile", "--directory", "-d")]
    flags += [tuple(arg.split("=", 1)) for arg in argv if arg.startswith(("--workflow-profile=", "--directory="))]
    given = [value for flag, value in flags if flag == "--workflow-profile"]
    if not given or given[-1] == "none":
        return
    profile, moved = Path(given[-1]), any(flag in ("--directory", "-d") for flag, _ in flags)
    if not profile.is_absolute() and moved:
        return
    cwd = Path(cwd or os.getcwd())
    candidates = [cwd / profile, cwd / "profiles" / profile, Path(basedir) / "profiles" / profile]
    if not any(path.exists() for path in candidates):
        raise GridError(f"--workflow-profile {given[-1]!r} names no profile (looked for {', '.join(map(str, candidates))})"
                        f": Snakemake would run without one, silently; give the profile's name (e.g. ci) or its full "
                        f"path")


def check_temp_folders(environ=os.environ) -> None:
    """A TMPDIR (or TMP, TEMP) naming an existing folder that takes no file (read-only, or a full disk) is a GridError
    naming it at DAG build: Snakemake's job scheduler writes its problem file there (through pulp) and stops with a
    traceback naming neither the variable nor the cure. A variable naming no folder is skipped, as pulp skips it."""
    for name in TEMP_VARIABLES:
        folder = environ.get(name)
        if not folder or not os.path.isdir(folder):
            continue
        try:
            _probe_write(folder)
        except OSError as err:
            raise GridError(f"{name} {folder!r} cannot hold a temporary file ({err.strerror or err}): Snakemake's job "
                            f"scheduler and the jobs write there; point {name} at a folder with room, or unset it") from None


# Snakemake deletes a job's existing outputs before it runs the job. A results_dir or data_dir that already holds
# names the workflow writes must be one the workflow made (it leaves FOLDER_MARK there when it starts), or a
# user's files of those names would be replaced.
FOLDER_MARK = ".topicbench-folder"
WORKFLOW_ENTRIES = {
    "results_dir": ("all_traces.parquet", "benchmarks", "figures", "logs", "paper", "report", "runs", "tables",
                    previous.AREA),  # kept results (topicbench.previous), removed by the workflow
    "data_dir": ("corpora", previous.AREA),  # a prepare's corpus.json kept while it reruns
}


def check_folders_owned(config: dict) -> None:
    """Before any job: results_dir and data_dir are new, hold none of the workflow's names, or carry FOLDER_MARK."""
    for key, entries in WORKFLOW_ENTRIES.items():
        root = Path(config[key])
        if not root.is_dir() or (root / FOLDER_MARK).exists():
            continue
        clash = [name for name in entries if os.path.lexists(root / name)]
        if clash:
            raise GridError(f"{key} {str(root)!r} already holds {', '.join(clash)}, which the workflow writes, but "
                            f"topicbench did not make it (no {FOLDER_MARK} there): its jobs would replace those "
                            f"files. Give a new or empty folder, or, if an earlier topicbench workflow made it, "
                            f"create {str(root / FOLDER_MARK)!r}")


def mark_folders(config: dict) -> None:
    """Leave FOLDER_MARK in results_dir and data_dir (the workflow's onstart), so later runs may replace their files."""
    for key in WORKFLOW_ENTRIES:
        root = Path(config[key])
        root.mkdir(parents=True, exist_ok=True)
        (root / FOLDER_MARK).touch()


# Snakemake's own lock lives in .snakemake/ of its working directory: two workflows started from two working
# directories (or with --nolock) on one results_dir would each delete and rewrite the other's outputs, and on one
# data_dir one could re-prepare a corpus (other dataset parameters) under the other's fits.
FOLDER_LOCK = ".topicbench-lock"
_HELD_LOCKS: dict[str, int] = {}


def lock_folders(config: dict) -> None:
    """Hold an exclusive lock on results_dir and data_dir until this process ends (the workflow's onstart, before any
    job), or raise GridError naming the folder and the workflow holding it. A flock: released by the kernel however
    its holder ends (SIGKILL too), and not inherited by the jobs (close-on-exec). Where the file system cannot lock,
    a warning says so and the workflow runs unlocked, as before."""
    import fcntl
    import socket
    import sys

    for key in WORKFLOW_ENTRIES:
        root = Path(config[key])
        root.mkdir(parents=True, exist_ok=True)
        path = root / FOLDER_LOCK
        if str(path.resolve()) in _HELD_LOCKS:  # results_dir == data_dir, or a second onstart in this process
            continue
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 1000).decode(errors="replace").strip() or "a process"
            os.close(fd)
            raise GridError(f"{key} {str(root)!r} is in use by another topicbench workflow ({holder}; lock "
                            f"{str(path)!r}): two workflows on one {key} would delete and rewrite each other's "
                            f"files. Wait for it to finish, or give another {key}") from None
        except OSError as err:
            os.close(fd)
            print(f"topicbench: warning: cannot lock {key} {str(root)!r} ({err.strerror or err}): make sure no other "
                  f"workflow uses it while this one runs", file=sys.stderr)
            continue
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}, started from {os.getcwd()}".encode())
        _HELD_LOCKS[str(path.resolve())] = fd


# Snakemake reruns a job whose params or inputs changed only from its records in .snakemake/metadata of the working
# directory: with those records gone (rm -rf .snakemake, another checkout, results copied in) or overruled (--touch),
# a config edit would leave stale fits and a stale all_traces.parquet in place, marked up to date. The outputs record
# what they were made from (a run's spec in model.npz, the traces of all_traces.parquet), and the workflow forces
# the rerun of every output whose record disagrees with the config, whatever Snakemake remembers.
AGGREGATE_INPUTS = "topicbench.aggregate_inputs"


def stale_outputs(results_dir, runs: dict[str, dict], data_dir=None) -> dict[str, str]:
    """Existing outputs that do not match the config: {path: why}. A fit whose model.npz records another spec
    (threads aside: they change speed, not results) or another corpus content than its prepared corpus in
    ``data_dir`` holds now, or an all_traces.parquet not made from exactly the configured runs' current traces."""
    import hashlib
    import json
    from dataclasses import asdict

    import numpy as np
    import pyarrow.parquet as pq

    from .io import parquet_metadata

    corpora: dict[str, str | None] = {}

    def corpus_now(dataset: str) -> str | None:
        """The content fingerprint of the prepared corpus as it is now, or None (not prepared, unreadable)."""
        if dataset not in corpora:
            corpora[dataset] = None
            with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
                meta = json.loads((Path(data_dir) / "corpora" / dataset / "corpus.json").read_text(encoding="utf-8"))
                corpora[dataset] = meta.get("content_sha256") or None  # the corpus_sha256 of fits on it
        return corpora[dataset]

    fingerprints: dict[str, str] = {}

    def code_now(method: str) -> str:
        """The code_sha256 a fit of ``method`` records now (read once per method and call)."""
        from .method import get_method, plugin_file
        from .run import code_fingerprint

        if method not in fingerprints:
            fingerprints[method] = code_fingerprint(plugin_file(get_method(method)))
        return fingerprints[method]

    def spec_of(value) -> dict:
        spec = json.loads(value if isinstance(value, str) else json.dumps(asdict(value), sort_keys=True, default=str))
        spec.pop("threads", None)
        return spec

    root, stale = Path(results_dir), {}
    for rid, entry in runs.items():
        # Snakemake rebuilds no missing intermediate file under an up-to-date target: a run file deleted by hand (to
        # ask for the run again) would leave a partial run folder behind, so the missing file is forced
        present = [name for name in RUN_FILES if (root / "runs" / rid / name).is_file()]
        for name in RUN_FILES if present else ():
            if name not in present:
                stale[str(root / "runs" / rid / name)] = (f"it is missing from its run folder, which holds "
                                                          f"{', '.join(present)}")
        trace = root / "runs" / rid / "trace.parquet"
        if trace.is_file():  # truncated or overwritten since its fit: aggregate would stop on it, so the fit reruns
            try:
                pq.read_metadata(trace)
            except Exception as err:
                stale[str(trace)] = f"it is not a readable Parquet file ({type(err).__name__})"
        model = root / "runs" / rid / "model.npz"
        if not model.is_file():
            continue
        try:
            with np.load(model) as archive:
                recorded = spec_of(str(archive["_spec_json"]))
                fitted_on = str(archive["_corpus_sha256"]) if "_corpus_sha256" in archive.files else None
                code = str(archive["_code_sha256"]) if "_code_sha256" in archive.files else ""
        except Exception:  # an unreadable or foreign model.npz is no evidence of a current run
            recorded = fitted_on = None
        if recorded != spec_of(entry["spec"]):
            stale[str(model)] = "its run's recorded spec differs from the config"
        elif code and code != code_now(entry["spec"].method):  # mtimes only: a run copied in, or marked by --touch
            stale[str(model)] = (f"it was fitted by other code than the file of method {entry['spec'].method} and the "
                                 f"topicbench package hold now")
        elif data_dir is not None and corpus_now(entry["dataset"]) not in (None, fitted_on):
            stale[str(model)] = (f"it was fitted on another content of corpus {entry['dataset']} than it holds now"
                                 if fitted_on else f"it records no content fingerprint of corpus {entry['dataset']}")
    table = root / "all_traces.parquet"
    if table.is_file():
        try:
            recorded = json.loads(parquet_metadata(table, AGGREGATE_INPUTS) or "null")
        except Exception:
            recorded = None
        wanted = {f"runs/{rid}/trace.parquet" for rid in runs}
        if not isinstance(recorded, dict) or set(recorded) != wanted:
            stale[str(table)] = "it was not aggregated from exactly the configured runs"
        else:
            for rel, digest in recorded.items():
                trace = root / rel
                if not trace.is_file():  # deleted since: the aggregate is rebuilt, and its fit with it
                    stale[str(table)] = f"{rel} is missing since it was aggregated"
                    break
                if hashlib.sha256(trace.read_bytes()).hexdigest() != digest:
                    stale[str(table)] = f"{rel} changed since it was aggregated"
                    break
    return stale


def stale_corpora(data_dir, datasets: dict, used, corpora_dir=None) -> dict[str, str]:
    """Prepared corpora (of the datasets in ``used``) that do not match the config: {corpus.json: why}. One recorded
    with other parameters than the config's (as the recipe resolves them), missing a file its corpus.json or its
    counts manifest lists (a shard deleted by hand), which every fit on it would fail over, or made from other raw
    files than the config's ``corpora_dir`` (or a file parameter) holds now: a source file edited, added or removed,
    or another corpora_dir whose copy differs (the same bytes under another corpora_dir are the same corpus)."""
    import json

    from .dataset import get_dataset, source_changes, source_files

    stale, code_now = {}, {}
    for name in sorted(used):
        folder = Path(data_dir) / "corpora" / name
        meta_path = folder / "corpus.json"
        if not meta_path.is_file():
            continue  # missing: Snakemake prepares it anyway
        entry = datasets[name]
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            manifest = folder / "counts" / "manifest.json"
            shards = json.loads(manifest.read_text()).get("shards", []) if manifest.is_file() else []
            listed = [*meta.get("checksums", {}), *(f"counts/{f}" for shard in shards for f in shard["files"].values())]
            sizes = _recorded_sizes(meta, shards)
            wanted = json.loads(json.dumps(get_dataset(entry["recipe"]).resolve_params(entry.get("params") or {}),
                                           default=str))
        except Exception:  # an unreadable record is no evidence of a current corpus
            stale[str(meta_path)] = "its corpus.json or counts manifest is unreadable"
            continue
        missing = [rel for rel in listed if not (folder / rel).is_file()]
        resized = [rel for rel, size in sizes.items() if (folder / rel).is_file() and (folder / rel).stat().st_size != size]
        if missing:
            stale[str(meta_path)] = f"{', '.join(missing[:3])} missing"
        elif resized:
            stale[str(meta_path)] = f"{', '.join(resized[:3])} not of the size recorded when it was written"
        elif meta.get("dataset_recipe") != entry["recipe"]:  # two recipes may resolve the same parameters
            stale[str(meta_path)] = (f"its recorded recipe {meta.get('dataset_recipe')!r} differs from the config's "
                                     f"{entry['recipe']!r}")
        elif meta.get("dataset_params") != wanted:
            stale[str(meta_path)] = "its recorded dataset parameters differ from the config"
        elif _prepared_by_other_code(meta, entry["recipe"], code_now):
            stale[str(meta_path)] = (f"it was prepared by other code than the file of recipe {entry['recipe']} and "
                                     f"the topicbench package hold now")
        else:
            recipe = get_dataset(entry["recipe"])
            files = source_files(recipe, recipe.resolve_params(entry.get("params") or {}), corpora_dir)
            recorded = meta.get("source_files")
            if not isinstance(recorded, dict):
                if files:
                    stale[str(meta_path)] = "it records no fingerprint of the source files it was prepared from"
            else:
                changed = source_changes(recorded, files)
                if changed:
                    stale[str(meta_path)] = changed
    return stale


def _recorded_sizes(meta: dict, shards: list) -> dict[str, int]:
    """The size of each corpus file (corpus.json's and each shard's) recorded when it was written, {path in the corpus
    folder: bytes}; {} for a corpus recording none. Compared by a stat at DAG build, so a truncated shard (a disk that
    filled, a copy cut short), which every fit on it would fail over, is prepared again without reading the shards
    (a change of the same size is still the fit's checksum error)."""
    sizes = {rel: int(size) for rel, size in (meta.get("bytes") or {}).items()}
    for shard in shards:
        sizes.update({f"counts/{shard['files'][part]}": int(size) for part, size in (shard.get("bytes") or {}).items()})
    return sizes


def _prepared_by_other_code(meta: dict, recipe: str, code_now: dict) -> bool:
    """Whether corpus.json's recorded ``code_sha256`` (its recipe's file and the package) differs from the code now.
    Snakemake compares only modification times, which a copied-in corpus or ``--touch`` makes look current."""
    from .dataset import get_dataset
    from .method import plugin_file
    from .run import code_fingerprint

    recorded = (meta.get("prepared_by") or {}).get("code_sha256") if isinstance(meta.get("prepared_by"), dict) else None
    if not recorded:
        return False  # prepared before corpora recorded their code: no evidence either way
    plugin = plugin_file(get_dataset(recipe))
    if plugin not in code_now:  # each recipe's code read once per call of stale_corpora
        code_now[plugin] = code_fingerprint(plugin)
    return recorded != code_now[plugin]


def expand_all(config: dict) -> dict[str, dict]:
    experiments = config.get("experiments") or {}
    if not experiments:
        raise GridError("the config defines no experiments: nothing to run")
    datasets = config.get("datasets") or {}
    check_datasets(datasets)
    runs: dict[str, dict] = {}
    for name, experiment in experiments.items():
        runs.update(expand_experiment(name, experiment, datasets))
    # names differing only in case are one folder on a case-insensitive file system (macOS, Windows): two runs or
    # corpora would write into one
    for what, names in (("run", list(runs)), ("dataset", list(datasets))):
        seen: dict[str, str] = {}
        for item in names:
            other = seen.setdefault(str(item).casefold(), item)
            if other != item:
                raise GridError(f"{what} {item!r} and {what} {other!r} differ only in letter case: one folder on a "
                                f"case-insensitive file system; rename one")
    check_datasets(datasets, {run["dataset"] for run in runs.values()}, config.get("corpora_dir"))
    check_planted_sizes(runs, datasets)
    return runs


def check_planted_sizes(runs: dict, datasets: dict) -> None:
    """What a run refuses on a corpus of the wrong size, at DAG build where the corpus is planted (its size is in its
    parameters): the fixed policy on no test documents, a minibatch or train_subset larger than the training set, a
    look-ahead window or every_nth_batch count the stream cannot hold, documents too short for the protocol to complete."""
    from .dataset import get_dataset

    sizes = {name: get_dataset(entry["recipe"]).resolve_params(dict(entry.get("params") or {}))
             for name, entry in datasets.items() if get_dataset(entry["recipe"]).synthetic}
    for rid, run in runs.items():
        spec, size = run["spec"], sizes.get(run["dataset"])
        if size is None or "n_train" not in size:
            continue
        if spec.holdout == "fixed" and size.get("n_test") == 0:
            raise GridError(f"run {rid}: holdout fixed scores the test split, but dataset {run['dataset']} is prepared "
                            f"with n_test = 0; give it test documents, or set holdout: every_nth_batch or lookahead")
        train = min(size["n_train"], spec.train_subset or size["n_train"])
        if spec.train_subset is not None and spec.train_subset > size["n_train"]:
            raise GridError(f"run {rid}: train_subset = {spec.train_subset} exceeds the {size['n_train']} training "
                            f"documents of dataset {run['dataset']} (n_train)")
        batch_size = get_method(spec.method).resolve_params(spec.params).get("batch_size")
        if batch_size is not None and batch_size > train:
            raise GridError(f"run {rid}: batch_size = {batch_size} exceeds the {train} training documents of dataset "
                            f"{run['dataset']} ({'train_subset' if train < size['n_train'] else 'n_train'}); every "
                            f"minibatch would be the whole training set")
        if size.get("max_length") is not None and size.get("min_length") is not None:  # bounded lengths
            import numpy as np

            from .evaluate import Protocol, completable

            lengths = np.arange(size["min_length"], size["max_length"] + 1)
            if not completable(lengths, Protocol(spec.observed_fraction, spec.folds, spec.eval_seed)).any():
                raise GridError(f"run {rid}: no document of dataset {run['dataset']} ({size['min_length']} to "
                                f"{size['max_length']} tokens) can be completed with observed_fraction = "
                                f"{spec.observed_fraction}{f', folds = {spec.folds}' if spec.folds > 1 else ''}: each "
                                f"would be observed whole or not at all, so nothing would be scored; give longer "
                                f"documents (max_length) or another observed_fraction")
        # the stream's length as run.py makes it (stream_order; a batch method: ceil(passes) full passes)
        stream_docs = (train * max(1, math.ceil(spec.passes)) if batch_size is None else
                       min(int(round(spec.passes * train)), spec.max_docs or train * math.ceil(spec.passes)))
        try:
            make_holdout(spec.holdout, spec.holdout_n, spec.n_checkpoints).check_length(
                stream_docs, batch_size or train, train)
        except StreamError as err:
            raise GridError(f"run {rid} on dataset {run['dataset']} ({train} training documents): {err}") from None
