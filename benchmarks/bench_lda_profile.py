"""Where online LDA (Hoffman, Blei and Bach 2010, Alg. 2) spends its fit time on a corpus: the E step (the numba
kernel), the M step (lambda's natural-gradient step over K x V) and exp(E[log beta]) over K x V, per minibatch,
in process CPU seconds (wall time on a shared machine includes waiting), with the E step's mean iterations per
document in each minibatch. One shuffled pass, the settings of bench_lda_speed.py (alpha = eta = 0.01, kappa = 0.7,
tau0 = 1, E step to mean |change in gamma| < 1e-3 or 100 iterations).

    python benchmarks/bench_lda_profile.py --corpus /tmp/tb/nyt_topmost /tmp/tb/wiki_bnpy --K 50 100

With ``--per-minibatch-peer sklearn_lda`` it times instead, minibatch by minibatch, online LDA's whole update and the
peer's (``threads`` numba threads / joblib workers) on the same minibatches from the same lambda_0, the peer right
after online LDA, over several seeds: which minibatches decide a pass's ratio. The first minibatch, under the random
lambda_0, keeps every topic active in every document (no topic falls to alpha), so online LDA's E step runs its dense
sweeps there, the same arithmetic as the peer's BLAS products; later minibatches run its sparse sweeps.

    python benchmarks/bench_lda_profile.py --corpus /tmp/tb/wiki_bnpy --K 50 --per-minibatch-peer sklearn_lda --seeds 0 1 2
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from topicbench import kernels
from topicbench.corpus import load_corpus
from topicbench.method import get_method
from topicbench.streams import Minibatch, stream_order


def profile(corpus, K, batch_size, threads, seed=0):
    train = corpus.split("train")
    lda = get_method("online_lda")(corpus.n_words, seed=seed, threads=threads, corpus_size=train.n_docs, K=K,
                                   batch_size=batch_size, kappa=0.7, tau0=1.0)
    order = stream_order("shuffled", train.n_docs, seed)
    batches = [train.rows(order[i:i + batch_size]) for i in range(0, len(order), batch_size)]
    lda.warm_up(Minibatch(batches[0][:2], order[:2], None, None, 0))  # compile off the clock (a deep copy fits)
    cpu = {"E step": 0.0, "M step": 0.0, "exp E[log beta]": 0.0}
    iterations, sweeps = [], []
    for counts in batches:
        diagnostics = {}
        t0 = time.process_time()
        _, sstats, its = kernels.lda_e_step(counts, lda.exp_elog_beta_t, lda.alpha, lda.hyper["e_step_max_iter"],
                                            lda.hyper["e_step_tol"], diagnostics=diagnostics, word_major=True)
        t1 = time.process_time()
        lda.lam = kernels.natural_gradient_step(lda.lam, lda.step_size(), lda.eta, train.n_docs / counts.shape[0], sstats)
        t2 = time.process_time()
        lda._refresh()
        cpu["E step"] += t1 - t0
        cpu["M step"] += t2 - t1
        cpu["exp E[log beta]"] += time.process_time() - t2
        lda.updates += 1
        iterations.append(float(np.mean(its)))
        sweeps.append((diagnostics["dense_sweeps"], diagnostics["sparse_sweeps"], diagnostics["active_topics_swept"]))
    words = np.mean([c.nnz / c.shape[0] for c in batches])
    return cpu, iterations, words, np.array(sweeps)


def per_minibatch(corpus, K, batch_size, threads, peer_name, seed):
    """Wall seconds per minibatch, (online LDA, peer), each whole update, on one seed's shuffled pass."""
    import copy

    train = corpus.split("train")
    settings = dict(K=K, batch_size=batch_size, kappa=0.7, tau0=1.0, alpha=0.01, eta=0.01)
    ours = get_method("online_lda")(corpus.n_words, seed=seed, threads=threads, corpus_size=train.n_docs, **settings)
    peer = get_method(peer_name)(corpus.n_words, seed=seed, threads=threads, corpus_size=train.n_docs, **settings)
    order = stream_order("shuffled", train.n_docs, seed)
    batches = [Minibatch(train.rows(order[i:i + batch_size]), order[i:i + batch_size], None, None, n)
               for n, i in enumerate(range(0, len(order), batch_size))]
    ours.warm_up(Minibatch(batches[0].counts[:2], order[:2], None, None, 0))
    copy.deepcopy(peer).partial_fit(Minibatch(batches[0].counts[:50], order[:50], None, None, 0))  # workers up
    times = []
    for batch in batches:
        t0 = time.perf_counter()
        ours.partial_fit(batch)
        t1 = time.perf_counter()
        peer.partial_fit(batch)
        times.append((t1 - t0, time.perf_counter() - t1))
    return np.array(times)


def paired_cells(t) -> str:
    """The table's cells for ``t`` (seeds x (online LDA s, peer s)): each side's median over seeds, and the per-seed
    paired ratio peer / online LDA with its median."""
    ratio = t[:, 1] / t[:, 0]
    return (f"{np.median(t[:, 0]):.3f} | {np.median(t[:, 1]):.3f} | {', '.join(f'{r:.1f}' for r in ratio)} "
            f"({np.median(ratio):.1f}x)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="+", required=True)
    parser.add_argument("--K", type=int, nargs="+", default=[100])
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--per-minibatch-peer", default=None, help="e.g. sklearn_lda: paired per-minibatch times")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args()
    kernels.set_threads(args.threads)
    if args.per_minibatch_peer:
        print(f"| corpus | K | minibatch | online LDA s (median over seeds) | {args.per_minibatch_peer} s | "
              f"paired ratio per seed (median) |\n|---|---|---|---|---|---|")
        for path in args.corpus:
            corpus = load_corpus(path)
            for K in args.K:
                runs = np.array([per_minibatch(corpus, K, args.batch_size, args.threads, args.per_minibatch_peer, s)
                                 for s in args.seeds])  # seeds x minibatches x (ours, peer)
                rows = [(str(b), runs[:, b]) for b in range(runs.shape[1])] + [("whole pass", runs.sum(axis=1))]
                for label, t in rows:
                    print(f"| {corpus.meta.get('name')} | {K} | {label} | {paired_cells(t)} |", flush=True)
        return
    print("| corpus | K | distinct words/doc | E step CPU s | M step CPU s | exp E[log beta] CPU s | E-step share "
          "| E-step iterations/doc, per minibatch | sweeps over all K topics, per minibatch | mean active topics of the "
          "other sweeps |\n|---|---|---|---|---|---|---|---|---|---|")
    for path in args.corpus:
        corpus = load_corpus(path)
        for K in args.K:
            cpu, its, words, sweeps = profile(corpus, K, args.batch_size, args.threads)
            dense = ", ".join(f"{d / (d + s):.0%}" for d, s, _ in sweeps)
            active = ", ".join(f"{a / max(s, 1):.1f}" for _, s, a in sweeps)
            print(f"| {corpus.meta.get('name')} | {K} | {words:.0f} | {cpu['E step']:.2f} | {cpu['M step']:.2f} | "
                  f"{cpu['exp E[log beta]']:.2f} | {cpu['E step'] / sum(cpu.values()):.0%} | "
                  f"{', '.join(f'{x:.0f}' for x in its)} | {dense} | {active} |", flush=True)


if __name__ == "__main__":
    main()
