"""Where one LG-NMF online minibatch's time goes (Hu et al. 2014, sec. 4), one grid point, against online LDA's whole
update on the same corpus; K = 100, minibatch 1024 (issue 14). With ``fit`` as a third argument, instead times one
MAP fit of the sec. 3.4 search (evaluate_alpha at alpha = 1 on the first minibatch), which older code also has.

    python benchmarks/bench_lgnmf_parts.py /tmp/peers_data/nyt_like 2
    python benchmarks/bench_lgnmf_parts.py /tmp/peers_data/nyt_like 2 fit
"""
import sys, time, numpy as np, scipy.sparse as sp
from threadpoolctl import threadpool_limits
from topicbench import kernels
from topicbench.corpus import load_corpus
from topicbench.method import get_method
from topicbench.streams import Minibatch
threads = int(sys.argv[2]); kernels.set_threads(threads)
c = load_corpus(sys.argv[1]); tr = c.split("train"); X = sp.csr_matrix(tr.counts[:2048], dtype=float); V = X.shape[1]; N = tr.n_docs; B = 1024
lg = sys.modules[get_method("lgnmf").__module__]
if sys.argv[3:] == ["fit"]:
    with threadpool_limits(threads):  # as the runner
        m = get_method("lgnmf")(V, seed=0, threads=threads, corpus_size=N, K=100, batch_size=B)
        m.carve_validation(X[:B], np.arange(B)); Xf = X[:B][~np.isin(np.arange(B), m.validation_rows)]
        m.evaluate_alpha(Xf[:50], 0.0)  # warm-up (numba)
        inner = lg._BLAS.limit(limits=1, user_api="blas") if hasattr(lg, "_BLAS") else threadpool_limits(threads)  # as partial_fit
        with inner:
            t = time.perf_counter(); out = m.evaluate_alpha(Xf, 0.0, N / Xf.shape[0])
            print(f"one sec. 3.4 MAP fit: {time.perf_counter() - t:.1f} s; criterion, eq. 8, validation per token: {out[:3]}")
    sys.exit()
from topicbench.lgnmf_kernels import projected_step
def med(f, n=5):
    f(); ts = []
    for _ in range(n): t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return float(np.median(ts))
Xb = X[:B]; C = sp.csr_matrix(Xb.T); nnz = Xb.nnz; K = 100
rng = np.random.default_rng(0); D = rng.uniform(size=(V, K)) / 10
with threadpool_limits(1):
    S = lg.solve_scores(Xb, D, 1.0, 1e-4, 50); StS = S.T @ S; DtD = D.T @ D
    rows = [("S_b start: HALS solve given D (sec. 3.1 S-block)", med(lambda: lg.solve_scores(Xb, D, 1.0, 1e-4, 50), 3), None),
            ("D @ (S'S) [eq. 15]", med(lambda: D @ StS), 2 * V * K * K),
            ("D'D [eq. 16]", med(lambda: D.T @ D), 2 * V * K * K),
            ("fused projected step on D: C S + update [eq. 15]", med(lambda: projected_step(D, D @ StS, C.indptr, C.indices, C.data, S, 100.0, 1e-3)) - med(lambda: D @ StS), 2 * nnz * K),
            ("fused projected step on S_b: C'D + update [eq. 16]", med(lambda: projected_step(S, S @ DtD, Xb.indptr, Xb.indices, Xb.data, D, 1.0, 1e-3)) - med(lambda: S @ DtD), 2 * nnz * K),
            ("S_b'S_b and S_b (D'D)", med(lambda: S.T @ S) + med(lambda: S @ DtD), 2 * 2 * B * K * K),
            ("2 eigvalsh (K x K, step caps)", 2 * med(lambda: np.linalg.eigvalsh(StS)), None)]
    m = get_method("lgnmf")(V, seed=0, threads=1, corpus_size=N, K=K, batch_size=B, grid_size=1)
    m.carve_validation(Xb, np.arange(B))
    after = [("eq. 8 + objective after the step", med(lambda: (lg.log_posterior_alpha(Xb, D, S, 1.0, 1e-6, 1e-6, 20.0), lg.map_objective(Xb, D, S, 1.0)), 3), None),
             ("validation log predictive (S solve on 102 docs)", med(lambda: m.validation_loglik(D, 1.0), 3), None)]
ol = get_method("online_lda")(V, seed=0, threads=threads, corpus_size=N, K=K, batch_size=B)
ol.partial_fit(Minibatch(X[:64], np.arange(64), np.arange(64), None, 0))
with threadpool_limits(threads):
    lda = [med(lambda i=i: ol.partial_fit(Minibatch(X[B:2 * B], np.arange(B, 2 * B), np.arange(B, 2 * B), None, i)), 3) for i in range(1)][0]
print(f"nnz {nnz}, V {V}, K {K}, N_b {B}; BLAS 1 thread; online LDA {threads} numba threads")
print("| part (one grid point) | per call s | calls per minibatch | s per minibatch | GFLOP per minibatch | GFLOP/s |")
print("|---|---|---|---|---|---|")
tot = 0; inh = 0
for name, t, fl in rows + after:
    calls = 25 if name.startswith(("D @", "D'D", "fused", "S_b'S_b", "2 eig")) else 1
    tot += t * calls
    if name.startswith(("D @", "D'D")): inh += t * calls
    print(f"| {name} | {t:.4f} | {calls} | {t * calls:.3f} | {'' if fl is None else f'{fl * calls / 1e9:.2f}'} | {'' if fl is None else f'{fl / t / 1e9:.1f}'} |")
print(f"| total per grid point | | | {tot:.3f} | | |")
print(f"| of which the V K^2 products (D S'S, D'D) | | | {inh:.3f} | {2 * 2 * V * K * K * 25 / 1e9:.1f} | |")
print(f"| online LDA, one minibatch update ({threads} threads) | | | {lda:.3f} | | |")
