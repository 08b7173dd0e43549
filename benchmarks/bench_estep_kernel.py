"""A/B timing of the LDA E-step kernel (topicbench.kernels.lda_e_step) at several stages of online LDA training.

Two versions of the kernels (A and B: the package directory topicbench/kernels/, a single kernels.py as before
the package, or ``git:REV`` for either at a git revision of this checkout) are loaded side by side. The lambda snapshots are made here, not read from disk: online LDA (K = 100,
minibatch 1024, the method's default alpha, eta, tau0, kappa; seed 0) runs over a shuffled order of the
training split with kernel A, and exp E[log beta] is kept after 0, 3 and 15 minibatch updates (stages e0,
e3, e15; e0 is the near-uniform lambda_0, where E-steps are slowest). Every stage then times both kernels
on the same minibatch of 1024 documents (the 17th of the order), alpha = 0.01, tol = 1e-3, max_iter =
100, with sufficient statistics, as in a fit. A and B alternate, each timed R times; the table gives the
minimum (process CPU time, robust to waiting for a core on a shared machine; wall time for threads > 1,
where CPU time would add the threads up). The iteration counts of A and B must be identical, and gamma
and sstats within 1e-9 relative, or the script stops: a faster kernel must do the same computation.

    python benchmarks/bench_estep_kernel.py --corpus data/corpora/nyt_like --a git:main --b topicbench/kernels \\
        --threads 1 --repeats 9

With ``--pass`` the stages are every minibatch of one shuffled pass instead, with the settings of
bench_lda_speed.py (alpha = eta = 0.01, kappa = 0.7, tau0 = 1): each minibatch's E step is timed with the lambda
the fit has when it reaches it, so the summed time is the E-step part of one fit (what the speed tables measure).
Each repeat times the whole pass with A, then with B; the table gives medians over repeats (wall time), for
corpora too small for the three fixed stages (e.g. wiki_bnpy, 7 minibatches):

    python benchmarks/bench_estep_kernel.py --pass --corpus /tmp/peers_data/wiki_bnpy --K 100 --threads 2 \\
        --repeats 5 --a git:main --b topicbench/kernels
"""
from __future__ import annotations

import argparse
import atexit
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# numba caches by file path and source; two copies of the kernels in one process need a private cache,
# removed when the process that made it exits (its subprocesses inherit it through the environment)
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench_estep_numba_")
    atexit.register(shutil.rmtree, os.environ["NUMBA_CACHE_DIR"], ignore_errors=True)

import numba  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(ROOT))
from topicbench.corpus import load_corpus  # noqa: E402
from topicbench.method import get_method  # noqa: E402
from topicbench.streams import Minibatch  # noqa: E402

STAGES = {"e0": 0, "e3": 3, "e15": 15}
BATCH = 1024
TIMED_BATCH = 16  # the minibatch of the order that is timed (not one the snapshots were trained on before e15)


def load_kernels(spec: str, name: str, workdir: Path):
    """The kernels from a path (package directory or kernels.py), or ``git:REV`` (topicbench/kernels/ or
    topicbench/kernels.py at REV, whichever it has), imported as a module of their own named ``bench_kernels_NAME``."""
    if spec.startswith("git:"):
        rev = spec[4:]
        listing = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", rev, "topicbench/"], check=True,
                                 capture_output=True, text=True).stdout.split()
        if "topicbench/kernels.py" in listing:
            path = workdir / f"{name}_kernels.py"
            path.write_text(subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:topicbench/kernels.py"],
                                           check=True, capture_output=True, text=True).stdout)
        else:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "topicbench/kernels"], check=True,
                                     capture_output=True).stdout
            target = workdir / name
            target.mkdir()
            subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
            path = target / "topicbench" / "kernels"
    else:
        path = Path(spec).resolve()
        if not (path.is_file() or (path / "__init__.py").is_file()):
            raise SystemExit(f"--{name}: {spec} is neither a kernels.py nor a package directory")
    module_name = f"bench_kernels_{name}"
    if path.is_dir():
        module_spec = importlib.util.spec_from_file_location(module_name, path / "__init__.py",
                                                             submodule_search_locations=[str(path)])
    else:
        module_spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module  # the package's relative imports look it up
    module_spec.loader.exec_module(module)
    return module


def snapshots(counts, kernels, order, K: int):
    """exp E[log beta] after 0, 3, 15 online LDA updates (OnlineLDA.partial_fit, its E-step run by ``kernels``)."""
    method = get_method("online_lda")(counts.shape[1], seed=0, threads=numba.get_num_threads(),
                                      corpus_size=counts.shape[0], K=K, batch_size=BATCH)
    saved = {}

    def e_step(batch_counts, want_sstats=True):
        return kernels.lda_e_step(batch_counts, method.exp_elog_beta, method.alpha, method.hyper["e_step_max_iter"],
                                  method.hyper["e_step_tol"], want_sstats=want_sstats)

    method.e_step = e_step  # the instance's E-step is kernel A's
    for update in range(max(STAGES.values()) + 1):
        for stage, at in STAGES.items():
            if at == update:
                saved[stage] = method.exp_elog_beta.copy()
        if update == max(STAGES.values()):
            break
        rows = order[update * BATCH:(update + 1) * BATCH]
        method.partial_fit(Minibatch(counts[rows], rows, rows, None, update))
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="a prepared corpus directory (topicbench prepare nyt_like)")
    parser.add_argument("--a", default="git:main", help="baseline kernels: a path or git:REV (default git:main)")
    parser.add_argument("--b", default=str(ROOT / "topicbench" / "kernels"), help="candidate kernels (a path)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--K", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0, help="seed of the shuffled document order")
    parser.add_argument("--pass", dest="one_pass", action="store_true",
                        help="time every minibatch of one pass of a fit (bench_lda_speed.py settings), medians")
    args = parser.parse_args()

    corpus = load_corpus(args.corpus)
    counts = corpus.split("train").counts.tocsr()
    if args.one_pass:
        numba.set_num_threads(args.threads)
        with tempfile.TemporaryDirectory() as tmp:
            compare_pass(counts, load_kernels(args.a, "a", Path(tmp)), load_kernels(args.b, "b", Path(tmp)), args)
        return
    if counts.shape[0] < (TIMED_BATCH + 1) * BATCH:
        raise SystemExit(f"--corpus: {counts.shape[0]} training documents; need >= {(TIMED_BATCH + 1) * BATCH}")
    numba.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:  # kept while numba may compile from the files in it
        kernels_a = load_kernels(args.a, "a", Path(tmp))
        kernels_b = load_kernels(args.b, "b", Path(tmp))
        compare(counts, kernels_a, kernels_b, args)


def compare(counts, kernels_a, kernels_b, args) -> None:
    order = np.random.default_rng(args.seed).permutation(counts.shape[0])
    snaps = snapshots(counts, kernels_a, order, args.K)
    batch = counts[order[TIMED_BATCH * BATCH:(TIMED_BATCH + 1) * BATCH]]
    clock = time.process_time if args.threads == 1 else time.perf_counter
    print(f"E-step of {batch.shape[0]} documents, K = {args.K}, {args.threads} thread(s), min of {args.repeats} "
          f"({'CPU' if args.threads == 1 else 'wall'} time); A = {args.a}, B = {args.b}")
    print(f"{'stage':6s} {'iter/doc':>8s} {'A ms':>8s} {'B ms':>8s} {'A/B':>6s}")
    for stage, exp_elog_beta in snaps.items():
        run_a = kernels_a.lda_e_step(batch, exp_elog_beta, 0.01, 100, 1e-3)
        run_b = kernels_b.lda_e_step(batch, exp_elog_beta, 0.01, 100, 1e-3)
        if not np.array_equal(run_a[2], run_b[2]):
            raise SystemExit(f"{stage}: A and B differ in iteration counts on {np.sum(run_a[2] != run_b[2])} documents")
        for name, x, y in (("gamma", run_a[0], run_b[0]), ("sstats", run_a[1], run_b[1])):
            if not np.allclose(y, x, rtol=1e-9, atol=1e-12):
                raise SystemExit(f"{stage}: A and B differ in {name} beyond rtol 1e-9")
        times = {"a": [], "b": []}
        for _ in range(args.repeats):
            for name, kernels in (("a", kernels_a), ("b", kernels_b)):
                start = clock()
                kernels.lda_e_step(batch, exp_elog_beta, 0.01, 100, 1e-3)
                times[name].append(clock() - start)
        best_a, best_b = min(times["a"]) * 1e3, min(times["b"]) * 1e3
        print(f"{stage:6s} {run_a[2].mean():8.1f} {best_a:8.1f} {best_b:8.1f} {best_a / best_b:6.3f}", flush=True)


def one_pass(counts, kernels, order, K: int):
    """(minibatch, exp E[log beta] the fit uses for it) for every minibatch of one pass of online LDA with the
    settings of bench_lda_speed.py, its E step run by ``kernels``."""
    method = get_method("online_lda")(counts.shape[1], seed=0, threads=numba.get_num_threads(),
                                      corpus_size=counts.shape[0], K=K, batch_size=BATCH, kappa=0.7, tau0=1.0)
    method.e_step = lambda batch_counts, want_sstats=True: kernels.lda_e_step(
        batch_counts, method.exp_elog_beta, method.alpha, method.hyper["e_step_max_iter"], method.hyper["e_step_tol"],
        want_sstats=want_sstats)
    stages = []
    for update, start in enumerate(range(0, counts.shape[0], BATCH)):
        rows = order[start:start + BATCH]
        stages.append((counts[rows], method.exp_elog_beta.copy()))
        method.partial_fit(Minibatch(counts[rows], rows, rows, None, update))
    return stages, method.alpha, method.hyper["e_step_max_iter"], method.hyper["e_step_tol"]


def compare_pass(counts, kernels_a, kernels_b, args) -> None:
    """Both kernels on every minibatch of one pass; per-minibatch and whole-pass medians over the repeats."""
    order = np.random.default_rng(args.seed).permutation(counts.shape[0])
    stages, alpha, max_iter, tol = one_pass(counts, kernels_a, order, args.K)
    run = {}
    for name, kernels in (("a", kernels_a), ("b", kernels_b)):
        run[name] = [kernels.lda_e_step(batch, beta, alpha, max_iter, tol) for batch, beta in stages]
    for i, (x, y) in enumerate(zip(run["a"], run["b"])):
        if not np.array_equal(x[2], y[2]):
            raise SystemExit(f"minibatch {i}: A and B differ in iteration counts on {np.sum(x[2] != y[2])} documents")
        for name, u, v in (("gamma", x[0], y[0]), ("sstats", x[1], y[1])):
            if not np.allclose(v, u, rtol=1e-9, atol=1e-12):
                raise SystemExit(f"minibatch {i}: A and B differ in {name} beyond rtol 1e-9")
    times = {"a": np.zeros((args.repeats, len(stages))), "b": np.zeros((args.repeats, len(stages)))}
    for r in range(args.repeats):
        for name, kernels in (("a", kernels_a), ("b", kernels_b)):
            for i, (batch, beta) in enumerate(stages):
                start = time.perf_counter()
                kernels.lda_e_step(batch, beta, alpha, max_iter, tol)
                times[name][r, i] = time.perf_counter() - start
    print(f"E steps of one pass ({len(stages)} minibatches of <= {BATCH}), K = {args.K}, {args.threads} thread(s), "
          f"median of {args.repeats} (wall time); A = {args.a}, B = {args.b}")
    print(f"{'batch':6s} {'iter/doc':>8s} {'A ms':>8s} {'B ms':>8s} {'A/B':>6s}")
    for i in range(len(stages)):
        a, b = np.median(times["a"][:, i]) * 1e3, np.median(times["b"][:, i]) * 1e3
        print(f"{i:<6d} {run['a'][i][2].mean():8.1f} {a:8.1f} {b:8.1f} {a / b:6.3f}")
    total_a, total_b = times["a"].sum(axis=1), times["b"].sum(axis=1)
    ratios = total_a / total_b
    print(f"{'pass':6s} {'':8s} {np.median(total_a) * 1e3:8.1f} {np.median(total_b) * 1e3:8.1f} "
          f"{np.median(ratios):6.3f}  (paired A/B per repeat: {', '.join(f'{x:.3f}' for x in ratios)})", flush=True)


if __name__ == "__main__":
    main()
