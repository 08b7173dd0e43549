# Shared definitions: the run table expanded from config (validated before any job starts).
import json
import os
import shlex
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

from topicbench import previous
from topicbench.cli import WORKFLOW_PID_ENV
from topicbench.run import RUN_FILES
from topicbench.grid import (GridError, check_config_file, check_folders_owned, check_paths, check_temp_folders,
                             check_workflow_profile, expand_all, lock_folders, mark_folders, stale_corpora,
                             stale_outputs)

# every topicbench prepare, run and aggregate a job starts watches this Snakemake and stops when it is gone (a killed
# Snakemake leaves no job writing data_dir or results_dir later); the fit rule's --exit-with-parent also uses it, so
# a fit whose Snakemake was killed before the fit could read its parent's pid stops too
os.environ[WORKFLOW_PID_ENV] = str(os.getpid())
for _path in workflow.configfiles:
    check_config_file(_path)  # duplicate keys, which YAML would drop silently
if workflow.is_main_process:
    check_workflow_profile(sys.argv, workflow.basedir)  # one Snakemake does not find, it ignores without a word
# One spelling of each folder ('./res/' is 'res', '.' the working directory's full path): Snakemake matches files as
# strings, and would not match a job's './res//runs/...' or './runs/...' outputs to the stale paths forced below or to
# the user's targets, which it reads as 'res/runs/...' and 'runs/...' ("No rule to produce ...").
for _key in ("results_dir", "data_dir", "corpora_dir"):
    if config.get(_key):
        config[_key] = str(Path(config[_key])) if str(Path(config[_key])) != "." else os.getcwd()
# corpora_dir, only read, by its real path: the prepare rule's params and inputs hold it, so the same folder spelt
# another way (relative, absolute, through a link) would otherwise re-prepare every corpus, and every job after it
if config.get("corpora_dir") and not config["corpora_dir"].startswith("~"):  # '~' is refused by check_paths
    config["corpora_dir"] = os.path.realpath(config["corpora_dir"])
RESULTS = config["results_dir"]
DATA = config["data_dir"]
RUNS = expand_all(config)  # raises GridError naming the experiment, run and grid point
check_paths(config, RUNS)  # no run or corpus folder outside results_dir / data_dir
check_folders_owned(config)  # no user file where a job writes (Snakemake deletes a job's old outputs)
check_temp_folders()  # a TMPDIR that takes no file (read-only, full) stops Snakemake's scheduler with a traceback
# Rules whose previous result can be kept while they rerun: the fits, the aggregate, the benchmarks table, the paper,
# every figure_* rule, and the prepares. A prepare's declared output, corpus.json, is one file of its corpus folder,
# which is replaced whole (io.atomic_directory), so its kept corpus.json goes back only into the folder it came from
# (previous.keep's folder_swapped): never into a new folder whose own corpus.json Snakemake removed after a failure.
KEEP_PREVIOUS_RULES = ("fit", "aggregate", "benchmarks", "paper", "prepare_corpus")


def keeps_previous(rule_name):
    return rule_name in KEEP_PREVIOUS_RULES or rule_name.startswith("figure_")


def keep_previous():
    """onstart: keep the previous outputs of each job about to rerun (topicbench.previous.keep)."""
    try:  # the jobs Snakemake will run (an internal of Snakemake 8-9); else every configured set, which costs links
        jobs = [job for job in workflow.dag.needrun_jobs() if keeps_previous(job.rule.name)]
        sets = [list(map(str, job.output)) for job in jobs]
        corpora = {str(job.output[0]) for job in jobs if job.rule.name == "prepare_corpus"}
    except AttributeError:
        corpora = {f"{DATA}/corpora/{name}/corpus.json" for name in {entry["dataset"] for entry in RUNS.values()}}
        sets = [[f"{RESULTS}/runs/{rid}/{name}" for name in RUN_FILES]
                for rid in RUNS] + [[f"{RESULTS}/all_traces.parquet"]] + [[path] for path in corpora]
    swapped = lambda outputs: outputs[0] in corpora  # noqa: E731 -- a prepare swaps its corpus folder in whole
    previous.keep(RESULTS, sets, swapped)  # each kept under the folder it lies in: corpora under data_dir
    previous.keep(DATA, [outputs for outputs in sets if not previous.lies_under(RESULTS, outputs)], swapped)


def finish_previous():
    """onsuccess, onerror (and the next start after a kill): end the kept sets, naming what was put back."""
    for root in dict.fromkeys((RESULTS, DATA)):
        try:
            restored = previous.finish(root)
        except OSError as err:
            print(f"topicbench: warning: could not put back or clear the previous results kept in "
                  f"{os.path.join(root, previous.AREA)} ({err.strerror or err}); the next run finishes it",
                  file=sys.stderr)
            continue
        for outputs in restored:
            print(f"topicbench: the rerun of {', '.join(outputs)} did not complete, so its previous result was put "
                  f"back (it reruns next time)", file=sys.stderr)


# A workflow killed while a job reran left that job's previous result kept aside (topicbench.previous): put it back
# (or keep the new one it completed) before the DAG is built, under the folder lock (not while another workflow runs).
if workflow.is_main_process and (previous.pending(RESULTS) or previous.pending(DATA)):
    try:
        lock_folders(config)
    except GridError:
        pass  # another workflow runs on results_dir and finishes its own kept results; this one's onstart stops
    else:
        finish_previous()
# Outputs whose own record disagrees with the config (topicbench.grid.stale_outputs) rerun, whatever .snakemake
# remembers: they join --forcerun. Snakemake hands the workflow its DAG settings only after this file is read, so
# the class's attribute learns to add them when it does (the settings themselves when they are already there).
STALE = {}


def _force(settings):
    if settings is not None and STALE:
        settings.forcerun = frozenset({*settings.forcerun, *STALE})
    return settings


def force_stale(found: dict) -> None:
    """Force the rerun of these stale outputs ({path: why}), saying why; called once per kind of record (runs and
    corpora here, figures in figures_plugins.smk) before Snakemake reads its DAG settings."""
    for path, why in found.items():
        print(f"topicbench: {path} is stale ({why}): forcing its rerun", file=sys.stderr)
    if not found:
        return
    hooked = bool(STALE)
    STALE.update(found)
    if hooked:  # the hook reads STALE when Snakemake hands over its settings; settings already there get these now
        _force(workflow.dag_settings)
        return
    try:  # only now is Snakemake's DAG-settings hand-over hooked (an internal of Snakemake 8-9, hence the guard)
        class _ForcingStale(type(workflow)):
            @property
            def dag_settings(self):
                return self.__dict__.get("dag_settings")

            @dag_settings.setter
            def dag_settings(self, settings):
                self.__dict__["dag_settings"] = _force(settings)

        _force(workflow.dag_settings)
        workflow.__class__ = _ForcingStale
    except (AttributeError, TypeError) as _err:  # a Snakemake whose workflow cannot be hooked: say so, never reuse
        raise WorkflowError(f"these outputs are stale ({_err.__class__.__name__} hooking this Snakemake's "
                            f"--forcerun): rerun with --forcerun " + " ".join(shlex.quote(p) for p in STALE))


if workflow.is_main_process:
    force_stale({**stale_corpora(DATA, config["datasets"], {entry["dataset"] for entry in RUNS.values()},
                                 config.get("corpora_dir")),
                 **stale_outputs(RESULTS, RUNS, DATA), **previous.restored_stale(RESULTS),
                 **previous.restored_stale(DATA)})


FIGURE_TARGETS = []  # each figures_*.smk appends the files it draws for experiments in the config


wildcard_constraints:
    dataset=r"[A-Za-z0-9_][A-Za-z0-9_.\-]*",
    run_id=r"[A-Za-z0-9_.~+/\-]+",


def repo_file(relative):
    """A file of this repository as an absolute path: Snakemake reads a relative input from the working directory,
    which is not the repository's when the Snakefile is given by path (snakemake -s <repo>/Snakefile, --directory)."""
    return os.path.join(workflow.basedir, relative)


def corpus_json(dataset):
    return f"{DATA}/corpora/{dataset}/corpus.json"


def has_experiment(name):
    return name in (config.get("experiments") or {})


def runs_of(experiment):
    return [rid for rid in RUNS if rid.split("/", 1)[0] == experiment]


def trace_files(run_ids):
    return [f"{RESULTS}/runs/{rid}/trace.parquet" for rid in run_ids]


def model_files(run_ids):
    return [f"{RESULTS}/runs/{rid}/model.npz" for rid in run_ids]


def spec_json(run_id):
    from dataclasses import asdict

    spec = asdict(RUNS[run_id]["spec"])
    spec.pop("threads")
    return json.dumps(spec, sort_keys=True)


def all_targets():
    return [f"{RESULTS}/all_traces.parquet", *FIGURE_TARGETS, f"{RESULTS}/paper/topicbench.md"]


def dataset_params(wildcards):
    """A configured dataset's recipe parameters as ``--param=name=value`` arguments, each shell-quoted."""
    entry = config["datasets"][wildcards.dataset]
    return " ".join(
        f"--param={shlex.quote(f'{key}={json.dumps(value)}')}" for key, value in (entry.get("params") or {}).items()
    )


def dataset_corpora_dir(dataset):
    """The corpora_dir a configured dataset's prepare reads from: the config's for a recipe that reads there
    (``topicbench.dataset.uses_corpora_dir``), None for a planted one, whose job then does not depend on it."""
    from topicbench.dataset import get_dataset, uses_corpora_dir

    return config.get("corpora_dir") if uses_corpora_dir(get_dataset(config["datasets"][dataset]["recipe"])) else None


def dataset_inputs(wildcards):
    """The files (and folders) a configured dataset's parameters name, e.g. user_text's path: a changed input
    file re-prepares the corpus instead of leaving a stale one behind."""
    from topicbench.dataset import input_paths

    entry = config["datasets"][wildcards.dataset]
    return sorted({str(path) for path in input_paths(entry.get("params") or {}, dataset_corpora_dir(wildcards.dataset))})


def _package_files():
    """Every file of the topicbench package (modules, kernels, package data), found once."""
    import topicbench

    root = Path(topicbench.__file__).resolve().parent
    return sorted(str(path) for path in root.rglob("*") if path.is_file() and "__pycache__" not in path.parts)


PACKAGE_FILES = _package_files()


def fit_code(wildcards):
    """The code a fit runs: its method's file and the topicbench package. As inputs, an edited file re-runs the fits
    that ran it (Snakemake's code trigger sees only a rule's shell line), so no result outlives the code behind it."""
    from topicbench.method import get_method, plugin_file

    # the file the method was loaded from, whatever its name (methods/my_methods.py may define my_method)
    return [str(plugin_file(get_method(RUNS[wildcards.run_id]["spec"].method))), *PACKAGE_FILES]


def prepare_code(wildcards):
    """The code a prepare runs: its recipe's file and the topicbench package (see ``fit_code``)."""
    from topicbench.dataset import get_dataset
    from topicbench.method import plugin_file

    return [str(plugin_file(get_dataset(config["datasets"][wildcards.dataset]["recipe"]))), *PACKAGE_FILES]


def corpora_dir_arg(wildcards):
    """``--corpora-dir=<dir>`` shell-quoted for a dataset whose recipe reads from corpora_dir, else nothing (no
    corpora_dir in the config, or a planted recipe: moving corpora_dir then reruns no planted prepare)."""
    corpora_dir = dataset_corpora_dir(wildcards.dataset)
    return f"--corpora-dir={shlex.quote(corpora_dir)}" if corpora_dir else ""


def experiment_dataset(name):
    experiment = config["experiments"][name]
    return experiment.get("dataset") or experiment["datasets"][0]


def first_run(experiment, label):
    """The first run of a labelled group (e.g. the online_full run whose model Fig. 1 reads)."""
    return next(rid for rid in runs_of(experiment) if f"/label~{label}/" in rid)
