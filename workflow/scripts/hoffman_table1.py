"""Hoffman et al. 2010, Table 1: the best (kappa, tau0) for each minibatch size, with its perplexity.

"Best" is by the paper's metric, the eq. 16 perplexity bound on whole held-out documents
(exp(-elbo_per_word)); document-completion perplexity of the same fit is a second column.
"""

import figlib

from topicbench import io


def final_rows(frame):
    return frame.sort_values("docs_seen").groupby(["label", "p_batch_size", "p_kappa", "p_tau0", "seed"]).tail(1)


def main():
    parser = figlib.arguments("traces", "experiment", "corpus_json", "table", "grid_csv")
    args = parser.parse_args()
    frame = figlib.bound_perplexity(figlib.load_traces(args.traces, args.experiment), args.experiment)
    final = final_rows(frame)
    grid = final.groupby(["p_batch_size", "p_kappa", "p_tau0"]).agg(
        bound_perplexity=("bound_perplexity", "mean"), bound_perplexity_sd=("bound_perplexity", "std"),
        completion_perplexity=("perplexity", "mean"), completion_perplexity_sd=("perplexity", "std"),
        seeds=("seed", "nunique"), docs_seen=("docs_seen", "max")).reset_index()
    io.write_text(args.grid_csv, grid.to_csv(index=False))
    best = grid.loc[grid.groupby("p_batch_size")["bound_perplexity"].idxmin()]
    lines = ["| minibatch S | best kappa | best tau0 | perplexity (eq. 16 bound) | perplexity (completion) |",
             "|---:|---:|---:|---:|---:|"]
    for row in best.itertuples():
        lines.append(f"| {int(row.p_batch_size)} | {row.p_kappa:g} | {row.p_tau0:g} | {row.bound_perplexity:.1f} "
                     f"| {row.completion_perplexity:.1f} |")
    by_completion = grid.loc[grid.groupby("p_batch_size")["completion_perplexity"].idxmin()]
    differ = [int(s) for s, a, b in zip(best["p_batch_size"], best.index, by_completion.index) if a != b]
    kappas = sorted(grid["p_kappa"].unique())
    taus = sorted(grid["p_tau0"].unique())
    caption = (f"Mirror of Hoffman et al. 2010, Table 1. {figlib.corpus_caption(args.corpus_json)}. "
               f"Grid: kappa in {{{', '.join(f'{k:g}' for k in kappas)}}} x tau0 in {{{', '.join(f'{t:g}' for t in taus)}}}; "
               f"final perplexity after {int(grid['docs_seen'].max()):,} documents, mean over "
               f"{int(grid['seeds'].max())} seed(s). The best setting per S is chosen, as in the paper (sec. 4), by "
               f"the perplexity bound of eq. 16 on the whole test documents, exp(-sum_i ELBO_i / sum_i N_i); the last "
               f"column is the same fit's {frame['protocol'].iloc[0]} perplexity"
               + (f" (choosing by it would pick another setting for S = {', '.join(map(str, differ))})" if differ
                  else " (choosing by it picks the same settings)")
               + f". Full grid: {args.grid_csv}.")
    figlib.write_caption(args.table, "Hoffman et al. 2010, Table 1", caption, "\n".join(lines))


if __name__ == "__main__":
    main()
