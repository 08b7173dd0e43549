"""``topicbench ...``: the commands the workflow rules call, usable by hand."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from io import BytesIO
from pathlib import Path

import yaml


class UsageError(ValueError):
    """A malformed command line or spec: reported as ``topicbench: error: ...`` with exit code 2."""


def _parse_assignments(pairs: list[str] | None, what: str) -> dict:
    """``NAME=VALUE`` pairs; VALUE is read as YAML (``1e-4`` stays a string here: the declared type converts it)."""
    from .method import check_yaml11_number

    out = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"{what} {pair!r} is not NAME=VALUE")
        key = key.strip()
        try:
            check_yaml11_number(value, f"{what} {key}")
        except ValueError as err:
            raise UsageError(str(err)) from None
        if key in out:
            raise UsageError(f"{what} {key} is given twice ({out[key]!r} and {value!r})")
        if value and not value.strip():  # YAML reads blanks as null: sep=' ' (a space) would arrive as None
            out[key] = value
            continue
        try:
            out[key] = yaml.safe_load(value)
        except yaml.YAMLError as err:
            raise UsageError(f"{what} {key}: cannot read the value {value!r} ({err.problem or err}); values are YAML: "
                             f"quote one that starts with '*', '&', '!' or holds a tab, e.g. {what} '{key}=\"{value}\"'") from None
    return out


# the parent as this process found it on start, the earliest this code can read it
_PARENT_AT_START = os.getppid()
# the pid of the Snakemake that runs this job (set by workflow/rules/common.smk): a Snakemake killed while the fit's
# Python starts is gone before _PARENT_AT_START is read, which then reads init (or a subreaper) instead
WORKFLOW_PID_ENV = "TOPICBENCH_WORKFLOW_PID"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, killed and not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True


def _exit_with_parent() -> None:
    """Stop this process as soon as its parent exits (the workflow ``exec``s the fit under Snakemake), so a killed
    Snakemake leaves no orphaned fit that later writes into a run folder; the run's staging folder is removed
    by the next run of that folder. Linux: PR_SET_PDEATHSIG; everywhere: a parent-pid watchdog.

    The parent is the workflow's Snakemake when it set $TOPICBENCH_WORKFLOW_PID, so one killed before this process
    could read its parent still stops the fit; without it (or under a wrapper process) the parent found on start."""
    import signal
    import threading
    import time

    parent = _PARENT_AT_START
    workflow = os.environ.get(WORKFLOW_PID_ENV, "")
    if workflow:
        if not workflow.isdigit() or int(workflow) < 1:
            raise UsageError(f"${WORKFLOW_PID_ENV} is {workflow!r}, not a process id")
        if int(workflow) == parent or not _alive(int(workflow)):  # a dead one: the fit was orphaned on start
            parent = int(workflow)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def stop():
        print(f"topicbench: parent process {parent} exited; stopping this run", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

    if os.getppid() != parent:  # died before the signal was armed (checked after prctl, so no gap)
        stop()

    def watch():
        while True:
            if os.getppid() != parent:
                stop()
            time.sleep(0.2)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _stop_with_workflow() -> None:
    """Under the workflow ($TOPICBENCH_WORKFLOW_PID set), stop this command as soon as that Snakemake is gone: a
    prepare or aggregate runs under a shell that outlives a killed Snakemake, and would otherwise write data_dir or
    results_dir later, after the workflow's folder lock is released (maybe over what the next workflow wrote)."""
    import signal
    import threading
    import time

    workflow = os.environ.get(WORKFLOW_PID_ENV, "")
    if not workflow:
        return
    if not workflow.isdigit() or int(workflow) < 1:
        raise UsageError(f"${WORKFLOW_PID_ENV} is {workflow!r}, not a process id")

    def stop():
        print(f"topicbench: the workflow's Snakemake (process {workflow}) exited; stopping", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

    if not _alive(int(workflow)):
        stop()

    def watch():
        while _alive(int(workflow)):
            time.sleep(0.2)
        stop()

    threading.Thread(target=watch, name="stop-with-workflow", daemon=True).start()


def cmd_methods(args) -> int:
    from .method import registry

    for name, cls in sorted(registry().items()):
        print(f"{name}: {cls.description}")
        uses = "takes the corpus size D" if cls.uses_corpus_size else "does not take D"
        print(f"    ({uses})")
        for key, value in cls.params.items():
            print(f"    {key} = {value!r}")
    return 0


def cmd_datasets(args) -> int:
    from .dataset import registry

    for name, cls in sorted(registry().items()):
        print(f"{name}: {cls.description}")
        for key, value in cls.params.items():
            print(f"    {key} = {value!r}")
    return 0


def _corpus_command(func):
    """Corpus commands report every failure as one ``topicbench: error: <file>: <problem>`` line, exit 2.

    The library raises CorpusError naming the file; an OSError that escaped it (a full disk, a read-only
    or vanished folder) names its file through ``filename``; anything else is a bug and keeps its traceback.
    """
    import functools

    @functools.wraps(func)
    def wrapper(args) -> int:
        from .corpus import CorpusError

        try:
            return func(args)
        except CorpusError as err:
            print(f"topicbench: error: {err}", file=sys.stderr)
        except OSError as err:
            culprit = err.filename or getattr(args, "out", None) or getattr(args, "path", None)
            print(f"topicbench: error: {culprit}: {err.strerror or err}", file=sys.stderr)
        return 2

    return wrapper


def _sigterm_as_exit():
    """SIGTERM as SystemExit(143) while inside: ``io.sigterm_as_exit`` (prepare's whole command, a fit's write)."""
    from .io import sigterm_as_exit

    return sigterm_as_exit()


@_corpus_command
def cmd_prepare(args) -> int:
    from .corpus import read_json
    from .dataset import prepare

    params = _parse_assignments(args.param, "--param")
    with _sigterm_as_exit():
        path = prepare(args.dataset, args.out, corpora_dir=args.corpora_dir, corpus_name=args.name, **params)
    # from corpus.json, not by loading the counts: a paper-scale corpus would not fit the memory bound
    meta = read_json(Path(path) / "corpus.json", dict)
    print(json.dumps({k: meta.get(k) for k in ("name", "n_docs", "n_train", "n_test", "n_words", "n_tokens")}, indent=2))
    return 0


@_corpus_command
def cmd_corpus_info(args) -> int:
    from .corpus import load_corpus

    summary = load_corpus(args.path).summary()
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"corpus      {summary['name']}  ({args.path})")
    print(f"documents   {summary['documents']:,}  (train {summary['train_documents']:,}, test {summary['test_documents']:,})")
    print(f"vocabulary  {summary['vocabulary']:,}")
    print(f"tokens      {summary['tokens']:,}  (mean {summary['mean_length']:.1f} per document)")
    q = summary["length_quantiles"]
    print("lengths     min {q0:g}  10% {q10:g}  median {q50:g}  90% {q90:g}  max {q100:g}".format(**q))
    print(f"time span   {' .. '.join(summary['time_span']) if 'time_span' in summary else 'none'}")
    return 0


def _json_object(text: str, what: str) -> dict:
    def unique(pairs):  # json keeps the last of a repeated key silently: another seed or K than one of them says
        out = {}
        for key, value in pairs:
            if key in out:
                raise UsageError(f"{what}: key {key!r} is given twice ({out[key]!r} and {value!r})")
            out[key] = value
        return out

    try:
        value = json.loads(text, object_pairs_hook=unique)
    except ValueError as err:
        if isinstance(err, UsageError):
            raise
        raise UsageError(f"{what} is not JSON: {err}") from None
    if not isinstance(value, dict):
        raise UsageError(f"{what} must be a JSON object of RunSpec fields, got {type(value).__name__}")
    return value


def cmd_run(args) -> int:
    from dataclasses import fields

    from .run import RunSpec, run

    if args.exit_with_parent:
        _exit_with_parent()
    # one value from several places (--spec, --spec-json, the flags, --set, --param) must agree: a silent
    # last-wins would run another seed, method or K than one of them says
    sources: list[tuple[str, dict]] = []
    if args.spec:
        try:
            text = Path(args.spec).read_text()
        except OSError as err:
            raise UsageError(f"--spec {args.spec}: {err.strerror or err}") from None
        sources.append((f"--spec {args.spec}", _json_object(text, f"--spec {args.spec}")))
    if args.spec_json:
        sources.append(("--spec-json", _json_object(args.spec_json, "--spec-json")))
    sources.append(("the flags", {k: v for k, v in {
        "method": args.method, "seed": args.seed, "threads": args.threads, "experiment": args.experiment,
        "dataset": args.dataset}.items() if v is not None}))
    sources.append(("--set", _parse_assignments(args.set, "--set")))
    sources.append(("--param", {"params": _parse_assignments(args.param, "--param")}))
    spec_dict, params, given_by = {}, {}, {}
    for source, values in sources:
        for key, value in values.items():
            if key == "params":
                if not isinstance(value, dict):
                    raise UsageError(f"the spec's params must be an object of hyperparameters, got {value!r}")
                for name, param in value.items():
                    if name in params and params[name] != param:
                        raise UsageError(f"hyperparameter {name!r} is given twice: {params[name]!r} by "
                                         f"{given_by['params', name]} and {param!r} by {source}")
                    params[name], given_by["params", name] = param, source
            elif key in spec_dict and spec_dict[key] != value:
                raise UsageError(f"run setting {key!r} is given twice: {spec_dict[key]!r} by {given_by[key]} and "
                                 f"{value!r} by {source}")
            else:
                spec_dict[key], given_by[key] = value, source
    spec_dict["params"] = params
    known = {f.name for f in fields(RunSpec)}
    unknown = sorted(set(spec_dict) - known)
    if unknown:
        raise UsageError(f"unknown run setting(s) {unknown}; known: {sorted(known)}")
    if "method" not in spec_dict:
        raise UsageError("--method is required")
    spec = RunSpec(**spec_dict)
    spec.check()
    trace, _ = run(spec, args.corpus, args.out)
    last = trace.iloc[-1]
    print(f"done: {spec.method} docs_seen={int(last['docs_seen'])} loglik_per_word={last['loglik_per_word']:.4f} "
          f"perplexity={last['perplexity']:.1f} fit_wall_s={last['fit_wall_s']:.1f}")
    return 0


def cmd_aggregate(args) -> int:
    import hashlib

    import pandas as pd
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    from . import io

    from .grid import AGGREGATE_INPUTS

    if not args.traces:
        raise UsageError("aggregate needs at least one trace.parquet (none given)")
    out = Path(args.out)
    ancestor = out.absolute().parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():  # before the traces are read (the write would say only 'File exists')
        raise UsageError(f"--out {out}: {ancestor} is a file, not a directory")
    if out.exists() or out.is_symlink():  # only an earlier table is replaced, never a user's file or an input
        if any(out.resolve() == Path(t).resolve() for t in args.traces):
            raise UsageError(f"--out {out} is one of the traces it would aggregate")
        if not out.is_file() or out.is_symlink() or (out.parent / "model.npz").exists() or not _aggregate_table(out):
            raise UsageError(f"--out {out} exists and is not an earlier aggregate table (a Parquet file recording "
                             f"the traces it holds, {AGGREGATE_INPUTS}, outside a run folder); it is left as it is")
    seen: dict[str, str] = {}  # one run's rows twice would count twice in every mean of every figure
    contents = []  # each trace read once: a run swapping in a new trace meanwhile cannot put its rows under the old sha
    for path in args.traces:
        try:
            contents.append(Path(path).read_bytes())
        except OSError as err:
            raise UsageError(f"trace {path} is unreadable ({err.strerror or err})") from None
        key = hashlib.sha256(contents[-1]).hexdigest()
        if key in seen:
            same = "is given twice" if Path(seen[key]).resolve() == Path(path).resolve() else "is a copy of"
            raise UsageError(f"trace {path} {same} {seen[key]}: the same run would count twice")
        seen[key] = path
    frames = []
    for path, content in zip(args.traces, contents):
        try:
            frames.append(pd.read_parquet(BytesIO(content)))
        except Exception as err:  # pyarrow raises several types for a truncated or foreign file; name it
            raise UsageError(f"trace {path} is unreadable ({type(err).__name__}: {err})") from None
    kinds: dict[str, dict[str, str]] = {}
    for path, frame in zip(args.traces, frames):
        for column in frame.columns:
            if frame[column].isna().all():
                continue  # an all-null column (e.g. NaN ELBOs) takes any type without a clash
            kind = ("bool" if is_bool_dtype(frame[column]) else "number" if is_numeric_dtype(frame[column])
                    else "text")
            kinds.setdefault(column, {}).setdefault(kind, path)
    mixed = {column: seen for column, seen in kinds.items() if len(seen) > 1}
    if mixed:
        column, seen = next(iter(mixed.items()))
        raise UsageError(f"column {column!r} holds different types across traces: "
                         + "; ".join(f"{kind} in {path}" for kind, path in seen.items()))
    from .traces import TRACE_IDENTITY

    # a row without them would enter the figures untraceable; nor is a NaN score a run's (the runner refuses a
    # checkpoint that holds out no token), and a claim's mean or pivot over seeds would silently leave it out
    for path, frame in zip(args.traces, frames):
        missing = [c for c in TRACE_IDENTITY if c not in frame.columns or frame[c].isna().any()]
        if missing:
            raise UsageError(f"trace {path} lacks {', '.join(missing)} (missing or empty in some rows): not a whole "
                             f"topicbench trace; run it again rather than aggregate it")
    _check_run_identities(args.traces, frames)
    _check_one_corpus_per_dataset(args.traces, frames)
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    try:
        io.fault_point("aggregate.write")
        # atomic: the old table or the new one; it records which traces it holds (path from the table's folder and
        # sha256), so a later workflow run can tell a stale table from a current one (topicbench.grid.stale_outputs)
        inputs = {os.path.relpath(path, out.parent): key for key, path in seen.items()}
        io.write_parquet(args.out, frame, {AGGREGATE_INPUTS: json.dumps(inputs, sort_keys=True)})
    except OSError as err:  # name the table (an ENOSPC from the writer may not)
        raise OSError(err.errno, err.strerror or str(err), str(args.out)) from err
    print(f"{len(frames)} traces, {len(frame)} rows -> {args.out}")
    return 0


def _aggregate_table(path: Path) -> bool:
    """Whether ``path`` is a table ``aggregate`` wrote: a Parquet file recording the traces it holds. Any other
    Parquet file (a corpus's docs.parquet, a user's own table) is no earlier aggregate to replace."""
    from . import io
    from .grid import AGGREGATE_INPUTS

    try:
        return path.read_bytes()[:4] == b"PAR1" and io.parquet_metadata(path, AGGREGATE_INPUTS) is not None
    except Exception:  # pyarrow raises several types for a file that is no Parquet after all
        return False


def _check_one_corpus_per_dataset(paths, frames) -> None:
    """The runs of one dataset name were fitted on one corpus content (``corpus_sha256``): figures average a dataset's
    runs as one, so seeds fitted before and after the corpus was prepared again from other source files (or on another
    copy of it) would mix two corpora under one name."""
    first: dict[str, tuple[str, str]] = {}
    for path, frame in zip(paths, frames):
        for dataset, sha in frame[["dataset", "corpus_sha256"]].drop_duplicates().itertuples(index=False):
            seen = first.setdefault(str(dataset), (str(sha), path))
            if seen[0] != str(sha):
                raise UsageError(f"traces {seen[1]} and {path} were fitted on two different contents of dataset "
                                 f"{dataset!r} (corpus_sha256 {seen[0][:12]}... and {str(sha)[:12]}...): the corpus "
                                 f"was prepared again in between; run the older ones again")


def _check_run_identities(paths, frames) -> None:
    """Each trace is one run, named as its folder says, and no two traces are the same run (experiment, dataset,
    method, label, hyperparameters, seed): a rerun kept beside its original, or a trace copied into another run's
    folder, would be averaged into the figures as if it were another seed or grid point."""
    from .grid import format_value
    from .traces import run_columns

    owners: dict[tuple, str] = {}
    for path, frame in zip(paths, frames):
        columns = run_columns(frame.columns)
        runs = frame[columns].astype(str).drop_duplicates()
        if len(runs) != 1:
            raise UsageError(f"trace {path} holds {len(runs)} runs (its rows disagree on "
                             f"{', '.join(c for c in columns if frame[c].astype(str).nunique() > 1)}); a trace is one run")
        first = frame.iloc[0]
        key = tuple(sorted((c, str(first[c])) for c in columns))
        if key in owners:
            raise UsageError(f"traces {owners[key]} and {path} are the same run (experiment {first['experiment']}, "
                             f"dataset {first['dataset']}, label {first['label']}, seed {first['seed']}, same "
                             f"hyperparameters): it would count twice; keep one")
        owners[key] = path
        # results_dir/runs/<experiment>/<dataset>/<method>/label~<label>/<param~value>.../seed~<seed>/trace.parquet
        parts = Path(os.path.abspath(path)).parts
        if len(parts) < 2 or not parts[-2].startswith("seed~"):
            continue  # not inside a run folder of the workflow's layout (a trace written with --out elsewhere)
        at = len(parts) - 2
        folder: dict[str, str] = {}
        while at >= 0 and "~" in parts[at]:
            name, _, value = parts[at].partition("~")
            folder[name] = value
            at -= 1
        if "label" in folder and at >= 2:
            folder.update(method=parts[at], dataset=parts[at - 1], experiment=parts[at - 2])
        recorded = {"seed": str(first["seed"]), "label": str(first["label"]), "method": str(first["method"]),
                    "dataset": str(first["dataset"]), "experiment": str(first["experiment"])}
        recorded.update({c[2:]: format_value(first[c].item() if hasattr(first[c], "item") else first[c])
                         for c in columns if c.startswith("p_") and first[c] is not None})
        wrong = [(name, value, recorded.get(name)) for name, value in folder.items() if recorded.get(name) != value]
        if wrong:
            name, value, held = wrong[0]
            raise UsageError(f"trace {path} is in the folder of {name} {value!r} but records {name} {held!r}: a trace "
                             f"moved or copied into another run's folder; run that run again")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="topicbench", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("methods", help="list methods with their parameters and defaults").set_defaults(func=cmd_methods)
    sub.add_parser("datasets", help="list dataset recipes").set_defaults(func=cmd_datasets)

    p = sub.add_parser("prepare", help="build a dataset into a corpus directory")
    p.add_argument("dataset")
    p.add_argument("--out", required=True)
    p.add_argument("--corpora-dir", default=None)
    p.add_argument("--name", default=None, help="the corpus name recorded in corpus.json (default: the recipe)")
    p.add_argument("--param", action="append", help="NAME=VALUE dataset parameter")
    p.set_defaults(func=cmd_prepare)

    p = sub.add_parser("corpus", help="corpus utilities")
    corpus_sub = p.add_subparsers(dest="corpus_command", required=True)
    info = corpus_sub.add_parser("info", help="documents, vocabulary, tokens, length quantiles, time span")
    info.add_argument("path")
    info.add_argument("--json", action="store_true")
    info.set_defaults(func=cmd_corpus_info)

    p = sub.add_parser("run", help="fit one (corpus, method, hyperparameters, seed) and write its outputs")
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--spec", help="JSON file with RunSpec fields")
    p.add_argument("--spec-json", help="RunSpec fields as a JSON string (what the workflow passes)")
    p.add_argument("--method")
    p.add_argument("--seed", type=int)
    p.add_argument("--threads", type=int)
    p.add_argument("--experiment")
    p.add_argument("--dataset")
    p.add_argument("--param", action="append", help="NAME=VALUE hyperparameter")
    p.add_argument("--set", action="append", help="NAME=VALUE run setting (stream, passes, holdout, ...)")
    p.add_argument("--exit-with-parent", action="store_true",
                   help="stop when the parent process exits (the workflow's fit rule: no orphaned fits)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("aggregate", help="concatenate trace.parquet files")
    p.add_argument("--out", required=True)
    p.add_argument("traces", nargs="*")
    p.set_defaults(func=cmd_aggregate)

    args = parser.parse_args(argv)
    for value in sys.argv[1:] if argv is None else argv:  # bytes the locale could not decode (LANG=C, non-ASCII)
        try:
            str(value).encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(value).decode("utf-8", "replace")
            print(f"topicbench: error: argument {shown!r} is not text in this locale "
                  f"({sys.getfilesystemencoding()}); run under a UTF-8 locale (LANG=C.UTF-8) or with PYTHONUTF8=1",
                  file=sys.stderr)
            return 2
    for flag in ("out", "corpus", "corpora_dir", "spec", "path"):  # --out=~/x reaches us unexpanded: a folder named ~
        value, shown = getattr(args, flag, None), "PATH" if flag == "path" else f"--{flag.replace('_', '-')}"
        if value == "":  # an unset shell variable ("--corpus $CORPUS"): the current folder, named by no one
            print(f"topicbench: error: {shown} is empty (an unset shell variable?); give the path", file=sys.stderr)
            return 2
        if isinstance(value, str) and value.startswith("~"):
            print(f"topicbench: error: {shown} {value!r} starts with '~', which the shell did not "
                  f"expand to the home folder (it would be a folder named '~'); give the full path", file=sys.stderr)
            return 2
    from .corpus import CorpusError
    from .method import ParamError, UnknownMethodError
    from .streams import StreamError

    try:
        if args.command in ("prepare", "run", "aggregate"):  # the commands that write
            _stop_with_workflow()
        return args.func(args)
    except (CorpusError, ParamError, UnknownMethodError, StreamError, ValueError, OSError) as err:
        print(f"topicbench: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
