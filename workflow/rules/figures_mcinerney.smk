# Stage 4 (McInerney, Ranganath and Blei 2015): Figures 1 and 3, from all_traces.parquet.
# One experiment per corpus, named mcinerney_fig1_<corpus> (its look-ahead n scaled to that corpus), each holding
# population VB over a log10-alpha grid, streaming VB and SVI on the time-ordered and permuted streams.
# Figure 1 draws every one of them as a column; Figure 3 reads their time-ordered population VB grids.
MCINERNEY_SCRIPTS = "workflow/scripts"
MCINERNEY_EXPERIMENTS = [name for name in (config.get("experiments") or {}) if name.startswith("mcinerney_fig1_")]


# corpus.json of each experiment's corpus, in column order (Fig. 1's caption describes them)
MCINERNEY_CORPORA = [
    corpus_json(config["experiments"][name].get("dataset") or config["experiments"][name]["datasets"][0])
    for name in MCINERNEY_EXPERIMENTS
]

if MCINERNEY_EXPERIMENTS:
    FIGURE_TARGETS.extend(expand(f"{RESULTS}/figures/mcinerney_fig{{n}}.{{ext}}", n=[1, 3], ext=["png", "pdf", "md"]))

    rule mcinerney_figure:
        input:
            traces=f"{RESULTS}/all_traces.parquet",
            script=f"{MCINERNEY_SCRIPTS}/mcinerney_fig{{n}}.py",
            corpora=MCINERNEY_CORPORA,
        output:
            png=f"{RESULTS}/figures/mcinerney_fig{{n}}.png",
            pdf=f"{RESULTS}/figures/mcinerney_fig{{n}}.pdf",
            caption=f"{RESULTS}/figures/mcinerney_fig{{n}}.md",
        wildcard_constraints:
            n="1|3",
        params:
            experiments=" ".join(MCINERNEY_EXPERIMENTS),
        log:
            f"{RESULTS}/logs/figures/mcinerney_fig{{n}}.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --traces {input.traces} --experiments {params.experiments} "
            "--corpus-json {input.corpora} --png {output.png} --pdf {output.pdf} --caption {output.caption} > {log} 2>&1"
