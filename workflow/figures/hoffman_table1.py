"""Hoffman et al. 2010, Table 1: the best (kappa, tau0) for each minibatch size, with its perplexity.

"Best" is by the paper's metric, the eq. 16 perplexity bound on whole held-out documents (exp(-elbo_per_word));
document-completion perplexity and topic quality of the same fit are further columns.
"""
import figlib

FIGURE = figlib.Figure(paper="hoffman", title="Hoffman et al. 2010, Table 1", experiments=("hoffman_table1",),
                       kind="table", extra=("tables/hoffman_table1_grid.csv",), order=3)


def grid_table(frame):
    """Final checkpoints averaged over seeds, one row per (S, kappa, tau0)."""
    final = figlib.final_rows(frame)
    keys = ["p_batch_size", "p_kappa", "p_tau0"]
    grid = final.groupby(keys).agg(
        bound_perplexity=("bound_perplexity", "mean"), bound_perplexity_sd=("bound_perplexity", "std"),
        completion_perplexity=("perplexity", "mean"), completion_perplexity_sd=("perplexity", "std"),
        seeds=("seed", "nunique"), docs_seen=("docs_seen", "max")).reset_index()
    return grid.merge(figlib.quality_columns(final, keys).reset_index(), on=keys)


def draw(ctx):
    (experiment,) = ctx.experiments
    frame = figlib.bound_perplexity(ctx.frame(experiment), experiment)
    grid = grid_table(frame)
    figlib.io.write_text(ctx.output("extra0"), grid.to_csv(index=False))
    best = grid.loc[grid.groupby("p_batch_size")["bound_perplexity"].idxmin()]
    quality = [c for c in ("NPMI", "diversity", "recovery cos") if c in best.columns]
    table = best.assign(**{"minibatch S": best["p_batch_size"].astype(int)}).rename(columns={
        "p_kappa": "best kappa", "p_tau0": "best tau0", "bound_perplexity": "perplexity (eq. 16 bound)",
        "completion_perplexity": "perplexity (completion)"})
    table = table[["minibatch S", "best kappa", "best tau0", "perplexity (eq. 16 bound)", "perplexity (completion)", *quality]]
    by_completion = grid.loc[grid.groupby("p_batch_size")["completion_perplexity"].idxmin()]
    differ = [int(s) for s, a, b in zip(best["p_batch_size"], best.index, by_completion.index) if a != b]
    kappas = sorted(grid["p_kappa"].unique())
    taus = sorted(grid["p_tau0"].unique())
    caption = (f"Mirror of Hoffman et al. 2010, Table 1. {ctx.corpus_caption(experiment)}. "
               f"Grid: kappa in {{{', '.join(f'{k:g}' for k in kappas)}}} x tau0 in {{{', '.join(f'{t:g}' for t in taus)}}}; "
               f"final perplexity after {int(grid['docs_seen'].max()):,} documents, mean over "
               f"{int(grid['seeds'].max())} seed(s). The best setting per S is chosen, as in the paper (sec. 4), by "
               f"the perplexity bound of eq. 16 on the whole test documents, exp(-sum_i ELBO_i / sum_i N_i); the next "
               f"column is the same fit's {frame['protocol'].iloc[0]} perplexity"
               + (f" (choosing by it would pick another setting for S = {', '.join(map(str, differ))})" if differ
                  else " (choosing by it picks the same settings)")
               + f". {figlib.QUALITY_NOTE} Full grid: tables/hoffman_table1_grid.csv.")
    formats = {"best kappa": "g", "best tau0": "g", "perplexity (eq. 16 bound)": ".1f", "perplexity (completion)": ".1f"}
    ctx.write(caption, figlib.markdown_table(table, {**formats, **{q: ".3f" for q in quality}}), table)
