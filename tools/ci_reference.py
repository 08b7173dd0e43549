"""Write the CI regression reference: the held-out per-word log predictive at every checkpoint of every
ci-profile run. Regenerate only on purpose (a change that is meant to move numbers), and say why in the commit:

    snakemake --cores 2 --configfile workflow/config/ci.yaml
    python tools/ci_reference.py --traces results/ci/all_traces.parquet --out results/reference/ci_traces.csv
"""
import argparse

import numpy as np
import pandas as pd

from topicbench import io
from topicbench.grid import format_value

KEY = ["experiment", "dataset", "method", "label", "params", "seed", "docs_seen", "eval_kind"]


def reference_frame(traces: pd.DataFrame) -> pd.DataFrame:
    params = sorted(c for c in traces.columns if c.startswith("p_"))
    frame = traces.copy()

    def value(v):
        # grid-style values, so that int/float/bool upcasts in the concatenated table (NaN where a
        # parameter belongs to another method) cannot change the key
        if isinstance(v, (bool, np.bool_)):
            return format_value(bool(v))
        if isinstance(v, (int, float, np.integer, np.floating)):
            return format_value(float(v))
        return format_value(v)

    def canonical(row):
        return ";".join(f"{k[2:]}={value(row[k])}" for k in params if row[k] is not None and not
                        (isinstance(row[k], (float, np.floating)) and np.isnan(row[k])))

    frame["params"] = frame[params].apply(canonical, axis=1)
    return frame[KEY + ["loglik_per_word"]].sort_values(KEY).reset_index(drop=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--traces", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    frame = reference_frame(pd.read_parquet(args.traces))
    io.write_text(args.out, frame.to_csv(index=False, float_format="%.10f"))
    print(f"{len(frame)} reference rows -> {args.out}")


if __name__ == "__main__":
    main()
