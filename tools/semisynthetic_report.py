"""Learnability and speed of the semi-synthetic recipes at the default profile's sizes (numbers for RESULTS/reports).

    PYTHONPATH=$PWD python tools/semisynthetic_report.py learn     # truth / one online pass / word frequency
    PYTHONPATH=$PWD python tools/semisynthetic_report.py speed --docs 200000 --out /tmp/nyt_like_200k

``learn`` builds each recipe at the size the default profile uses (workflow/config/default.yaml) and fits one
online LDA pass (K = the planted K, S = 256, tau0 = 64, kappa = 0.7, alpha = 1/K, eta = 0.01), scored with the
document-completion protocol of corpus.json's reference_perplexity (observed fraction 0.5, eval seed 0).
"""
import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from topicbench.dataset import get_dataset, prepare  # noqa: E402
from topicbench.run import RunSpec, run  # noqa: E402

DEFAULT_SIZES = {  # dataset name in default.yaml -> (recipe, params)
    "nyt_like": ("nyt_like", {"n_train": 20000, "n_test": 1000}),
    "mcinerney_science": ("science_like", {"n_train": 3000, "n_test": 100, "n_words": 3000, "n_topics": 30, "seed": 11}),
    "mcinerney_twitter": ("twitter_like", {"n_train": 40000, "n_test": 500, "n_words": 2000, "n_topics": 30, "seed": 11}),
    "hu_wiki": ("wiki_like", {"n_train": 10000, "n_test": 500, "n_words": 4000, "n_topics": 50, "seed": 23}),
}


def learn(names):
    print("dataset | recipe | true model | one online pass | word frequency | truth/unigram | pass/unigram")
    for name in names:
        recipe, params = DEFAULT_SIZES[name]
        cls = get_dataset(recipe)
        corpus = cls().build(**cls.resolve_params(params))
        ref = corpus.meta["reference_perplexity"]
        K = corpus.truth["topics"].shape[0]
        spec = RunSpec(method="online_lda", params={"K": K, "batch_size": 256, "tau0": 64.0, "kappa": 0.7,
                                                    "alpha": 1.0 / K, "eta": 0.01}, passes=1, n_checkpoints=1,
                       report_elbo=False)
        trace, _ = run(spec, corpus, progress_every_s=1e9)
        fit = float(trace["perplexity"].iloc[-1])
        print(f"{name} | {recipe} | {ref['true_model']:.0f} | {fit:.0f} | {ref['word_frequency']:.0f} | "
              f"{ref['true_model'] / ref['word_frequency']:.2f} | {fit / ref['word_frequency']:.2f}", flush=True)


def speed(recipe, docs, out):
    start = time.perf_counter()
    prepare(recipe, out, n_train=docs, n_test=min(2000, docs // 10))
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(f"{recipe}: {docs} docs in {wall:.1f} s ({docs / wall:,.0f} docs/s), peak RSS {peak:.0f} MiB "
          f"(process, including imports)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["learn", "speed"])
    parser.add_argument("--only", nargs="*", default=sorted(DEFAULT_SIZES))
    parser.add_argument("--recipe", default="nyt_like")
    parser.add_argument("--docs", type=int, default=200000)
    parser.add_argument("--out", default="/tmp/semisynthetic_speed")
    args = parser.parse_args()
    learn(args.only) if args.what == "learn" else speed(args.recipe, args.docs, args.out)
