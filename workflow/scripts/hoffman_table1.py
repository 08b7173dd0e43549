"""Hoffman et al. 2010, Table 1: the best (kappa, tau0) for each minibatch size, with its perplexity."""

import figlib

from topicbench import io


def final_rows(frame):
    return frame.sort_values("docs_seen").groupby(["label", "p_batch_size", "p_kappa", "p_tau0", "seed"]).tail(1)


def main():
    parser = figlib.arguments("traces", "experiment", "corpus_json", "table", "grid_csv")
    args = parser.parse_args()
    frame = figlib.load_traces(args.traces, args.experiment)
    final = final_rows(frame)
    grid = final.groupby(["p_batch_size", "p_kappa", "p_tau0"]).agg(
        perplexity=("perplexity", "mean"), perplexity_sd=("perplexity", "std"), seeds=("seed", "nunique"),
        docs_seen=("docs_seen", "max")).reset_index()
    io.write_text(args.grid_csv, grid.to_csv(index=False))
    best = grid.loc[grid.groupby("p_batch_size")["perplexity"].idxmin()]
    lines = ["| minibatch S | best kappa | best tau0 | perplexity |", "|---:|---:|---:|---:|"]
    for row in best.itertuples():
        lines.append(f"| {int(row.p_batch_size)} | {row.p_kappa:g} | {row.p_tau0:g} | {row.perplexity:.1f} |")
    kappas = sorted(grid["p_kappa"].unique())
    taus = sorted(grid["p_tau0"].unique())
    caption = (f"Mirror of Hoffman et al. 2010, Table 1. {figlib.corpus_caption(args.corpus_json)}. "
               f"Grid: kappa in {{{', '.join(f'{k:g}' for k in kappas)}}} x tau0 in {{{', '.join(f'{t:g}' for t in taus)}}}; "
               f"final perplexity after {int(grid['docs_seen'].max()):,} documents, mean over "
               f"{int(grid['seeds'].max())} seed(s). Protocol: {frame['protocol'].iloc[0]}. "
               f"Full grid: {args.grid_csv}.")
    figlib.write_caption(args.table, "Hoffman et al. 2010, Table 1", caption, "\n".join(lines))


if __name__ == "__main__":
    main()
