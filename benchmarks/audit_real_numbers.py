"""The numbers18 audit (RESULTS.md, "Real-text sanity audit"): every method on nyt_topmost, wiki_bnpy and
trump_tweets_dslabs prepared under $AUDIT_ROOT/data/<name>; runs go to $AUDIT_ROOT/runs/<tag>, finished runs are skipped.

    AUDIT_ROOT=/tmp/numbers18 python benchmarks/audit_real_numbers.py main 10,50 0,1
    AUDIT_ROOT=/tmp/numbers18 python benchmarks/audit_real_numbers.py pairs   # or extra, papers
"""
import json, subprocess, sys, os, itertools, time
from pathlib import Path
WT = str(Path(__file__).resolve().parent.parent); ROOT = Path(os.environ.get("AUDIT_ROOT", "/tmp/numbers18"))
CORPORA = ["nyt_topmost", "wiki_bnpy", "trump_tweets_dslabs"]
NTRAIN = {"nyt_topmost": 8254, "wiki_bnpy": 7165, "trump_tweets_dslabs": 16743}

def params(method, K, corpus):
    a = round(1.0 / K, 4)
    lda = dict(K=K, alpha=a, eta=0.01)
    online = dict(lda, batch_size=256, kappa=0.7, tau0=64.0)
    return {"online_lda": online, "gensim_lda": online, "sklearn_lda": online,
            "population_vb": dict(online, log10_population=round(__import__('math').log10(NTRAIN[corpus]), 2)),
            "streaming_vb": dict(lda, batch_size=256),
            "batch_lda": lda,
            "bnmf": dict(K=K, batch_size=256, kappa=0.7, tau0=64.0),
            "cnmf": dict(K=K, batch_size=256, kappa=0.7, tau0=64.0, m=min(K, 50)),
            "gensim_nmf": dict(K=K, batch_size=256),
            "sklearn_nmf": dict(K=K, batch_size=256),
            "lgnmf": dict(K=K, grid_size=5)}[method]

def settings(method):
    return {"batch_lda": dict(passes=6)}.get(method, dict(passes=3))

def run(tag, corpus, method, K, seed, extra_params=None, extra_settings=None, threads=1):
    out = ROOT / "runs" / tag
    if (out / "trace.parquet").exists():
        return out
    p = params(method, K, corpus); p.update(extra_params or {})
    s = dict(max_test_docs=300, n_checkpoints=4); s.update(settings(method)); s.update(extra_settings or {})
    cmd = ["python", "-m", "topicbench.cli", "run", "--corpus", str(ROOT / "data" / corpus), "--out", str(out),
           "--method", method, "--seed", str(seed), "--threads", str(threads), "--dataset", corpus]
    cmd += sum((["--param", f"{k}={v}"] for k, v in p.items()), [])
    cmd += sum((["--set", f"{k}={v}"] for k, v in s.items()), [])
    t = time.time()
    r = subprocess.run(cmd, cwd=WT, env=dict(os.environ, PYTHONPATH=WT), capture_output=True, text=True)
    print(f"{tag}: rc={r.returncode} {time.time()-t:.0f}s {r.stdout.strip().splitlines()[-1:] if r.returncode == 0 else r.stderr[-800:]}", flush=True)
    return out

if __name__ == "__main__":
    which = sys.argv[1]
    METHODS = ["online_lda", "batch_lda", "streaming_vb", "population_vb", "gensim_lda", "sklearn_lda",
               "bnmf", "cnmf", "gensim_nmf", "sklearn_nmf", "lgnmf"]
    if which == "main":
        Ks = [int(k) for k in sys.argv[2].split(",")]; seeds = [int(s) for s in sys.argv[3].split(",")]
        corpora = sys.argv[4].split(",") if len(sys.argv) > 4 else CORPORA
        for K, corpus, seed, m in itertools.product(Ks, corpora, seeds, METHODS):
            run(f"{corpus}-{m}-K{K}-s{seed}", corpus, m, K, seed)
    if which == "pairs":
        c = "nyt_topmost"
        run("pair-online_k0", c, "online_lda", 10, 0, dict(kappa=0.0, tau0=1e6, batch_size=8254), dict(passes=6))
        run("pair-batch", c, "batch_lda", 10, 0, dict(rel_tol=0.0), dict(passes=6))
        run("rep-online_lda-t1a", c, "online_lda", 10, 0)
        run("rep-online_lda-t2", c, "online_lda", 10, 0, threads=2)
        run("rep-bnmf-t2", c, "bnmf", 10, 0, threads=2)
        run("rep-cnmf-t2", c, "cnmf", 10, 0, threads=2)
        run("rep-svb-t2", c, "streaming_vb", 10, 0, threads=2)
        run("rep-lgnmf-t2", c, "lgnmf", 10, 0, threads=2)
        run("rep-gensim_lda-t2", c, "gensim_lda", 10, 0, threads=2)
        run("rep-sklearn_lda-t2", c, "sklearn_lda", 10, 0, threads=2)
        run("rep-sklearn_nmf-t2", c, "sklearn_nmf", 10, 0, threads=2)
        run("rep-gensim_nmf-t2", c, "gensim_nmf", 10, 0, threads=2)
        run("rep-pvb-t2", c, "population_vb", 10, 0, threads=2)
        run("rep-batch-t2", c, "batch_lda", 10, 0, threads=2)
    if which == "extra":
        c = "nyt_topmost"
        run("x-online_kappa1_tau1", c, "online_lda", 10, 0, dict(kappa=1.0, tau0=1.0))
        run("x-online_kappa1_tau1-p1", c, "online_lda", 10, 0, dict(kappa=1.0, tau0=1.0), dict(passes=1))
        run("x-svb-p1", c, "streaming_vb", 10, 0, None, dict(passes=1))
        run("x-bnmf-paisley", c, "bnmf", 10, 0, dict(kappa=0.5, tau0=1.0))
        run("x-online-paisley", c, "online_lda", 10, 0, dict(kappa=0.5, tau0=1.0, allow_kappa_half=True))
        run("x-online-tau1024", c, "online_lda", 10, 0, dict(tau0=1024.0))
        run("x-online_lda-3fold", c, "online_lda", 10, 0, None, dict(folds=3))
        run("x-bnmf-3fold", c, "bnmf", 10, 0, None, dict(folds=3))
    if which == "papers":
        c = "nyt_topmost"
        pz = dict(holdout="every_nth_batch", holdout_n=10, folds=3, passes=1, report_elbo=False)
        def runp(tag, m, p, s):
            out = ROOT / "runs" / tag
            if (out / "trace.parquet").exists(): return
            cmd = ["python", "-m", "topicbench.cli", "run", "--corpus", str(ROOT / "data" / c), "--out", str(out), "--method", m, "--seed", "0", "--dataset", c]
            cmd += sum((["--param", f"{k}={v}"] for k, v in p.items()), []) + sum((["--set", f"{k}={v}"] for k, v in s.items()), [])
            t = time.time(); r = subprocess.run(cmd, cwd=WT, env=dict(os.environ, PYTHONPATH=WT), capture_output=True, text=True)
            print(f"{tag}: rc={r.returncode} {time.time()-t:.0f}s {r.stdout.strip().splitlines()[-1:] if r.returncode == 0 else r.stderr[-800:]}", flush=True)
        K = 50
        runp("paisley-bnmf", "bnmf", dict(K=K, batch_size=128, kappa=0.5, tau0=1.0), pz)
        runp("paisley-cnmf", "cnmf", dict(K=K, batch_size=128, kappa=0.5, tau0=1.0, m=50), pz)
        runp("paisley-online_lda", "online_lda", dict(K=K, alpha=0.02, batch_size=128, kappa=0.5, tau0=1.0, allow_kappa_half=True), pz)
        mc = dict(holdout="lookahead", holdout_n=400, n_checkpoints=6, report_elbo=False)
        runp("mcin-pvb-ordered", "population_vb", dict(K=K, alpha=0.01, eta=0.01, batch_size=128, kappa=0.7, tau0=64.0, log10_population=4.0), dict(mc, stream="time_ordered"))
        runp("mcin-svb-ordered", "streaming_vb", dict(K=K, alpha=0.01, eta=0.01, batch_size=128), dict(mc, stream="time_ordered"))
        runp("mcin-svi-wr", "online_lda", dict(K=K, alpha=0.01, eta=0.01, batch_size=128, kappa=0.7, tau0=64.0), dict(mc, stream="with_replacement"))
        runp("mcin-pvb-perm", "population_vb", dict(K=K, alpha=0.01, eta=0.01, batch_size=128, kappa=0.7, tau0=64.0, log10_population=4.0), dict(mc, stream="shuffled", passes=1))
        runp("mcin-svb-perm", "streaming_vb", dict(K=K, alpha=0.01, eta=0.01, batch_size=128), dict(mc, stream="shuffled", passes=1))
