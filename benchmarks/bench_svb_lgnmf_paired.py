"""Paired per-minibatch fit times (issue 14): online LDA, streaming VB, LG-NMF online (M = 1 and 10), K = 100, minibatch 1024,
2 threads, on the first 4096 training documents. Each method's minibatches 1-3 are timed, each followed by online LDA on
the same minibatch (paired, because the machine is shared); the first minibatch (numba warm-up; LG-NMF's sec. 3.4 grid
search) is reported apart. Fit time only.

    topicbench prepare nyt_like --out /tmp/svb_lg/nyt_like
    python benchmarks/bench_svb_lgnmf_paired.py /tmp/svb_lg/nyt_like 4
"""
import time, sys, numpy as np, scipy.sparse as sp, cProfile, pstats
from topicbench.corpus import load_corpus
from topicbench.method import get_method
from topicbench.streams import Minibatch
c = load_corpus(sys.argv[1]); X = sp.csr_matrix(c.split("train").counts[:4096], dtype=float); V = X.shape[1]; N = 20000
def mb(i): rows = np.arange(i * 1024, (i + 1) * 1024); return Minibatch(X[rows], rows, rows, None, i)
def clock(m, i):
    t, c0 = time.perf_counter(), time.process_time(); m.partial_fit(mb(i)); return time.perf_counter() - t, time.process_time() - c0
ol = get_method("online_lda")(V, seed=0, threads=2, corpus_size=N, K=100, batch_size=1024); clock(ol, 0)
res = {}
for name, make in [("online_lda", lambda: ol),
                   ("streaming_vb", lambda: get_method("streaming_vb")(V, seed=0, threads=2, K=100, batch_size=1024)),
                   ("lgnmf_M1", lambda: get_method("lgnmf")(V, seed=0, threads=2, corpus_size=N, K=100, batch_size=1024, grid_size=1)),
                   ("lgnmf_M10", lambda: get_method("lgnmf")(V, seed=0, threads=2, corpus_size=N, K=100, batch_size=1024, grid_size=10))][:int(sys.argv[2])]:
    m = make(); first = None
    if name != "online_lda": first = clock(m, 0)
    later = [clock(m, i) for i in (1, 2, 3)]
    lda = [clock(ol, i) for i in (1, 2, 3)]  # paired: online LDA on the same minibatches right after
    ratio = np.median([l[0] / x[0] for l, x in zip(lda, later)])
    print(f"{name}: first minibatch {first}, later minibatches wall {[round(x[0], 2) for x in later]} cpu {[round(x[1], 2) for x in later]}; "
          f"online LDA wall {[round(x[0], 2) for x in lda]}; median docs/s ratio to online LDA {ratio:.3f}", flush=True)
