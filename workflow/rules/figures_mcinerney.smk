# Stage 4 (McInerney, Ranganath and Blei 2015): Figures 1 and 3, from all_traces.parquet.
# One experiment, mcinerney_fig1, holds every run: population VB over a log10-alpha grid, streaming VB and
# SVI on the time-ordered and permuted streams. Figure 3 reads its time-ordered population VB grid.
MCINERNEY_SCRIPTS = "workflow/scripts"


def mcinerney_datasets(name):
    experiment = config["experiments"][name]
    return experiment.get("datasets") or [experiment["dataset"]]


if has_experiment("mcinerney_fig1"):
    FIGURE_TARGETS.extend(expand(f"{RESULTS}/figures/mcinerney_fig{{n}}.{{ext}}", n=[1, 3], ext=["png", "pdf", "md"]))

    rule mcinerney_fig1:
        input:
            traces=f"{RESULTS}/all_traces.parquet",
        output:
            png=f"{RESULTS}/figures/mcinerney_fig1.png",
            pdf=f"{RESULTS}/figures/mcinerney_fig1.pdf",
            caption=f"{RESULTS}/figures/mcinerney_fig1.md",
        params:
            experiment="mcinerney_fig1",
            datasets=" ".join(mcinerney_datasets("mcinerney_fig1")),
        log:
            f"{RESULTS}/logs/figures/mcinerney_fig1.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {MCINERNEY_SCRIPTS}/mcinerney_fig1.py --traces {input.traces} --experiment {params.experiment} "
            "--datasets {params.datasets} --png {output.png} --pdf {output.pdf} --caption {output.caption} > {log} 2>&1"

    rule mcinerney_fig3:
        input:
            traces=f"{RESULTS}/all_traces.parquet",
        output:
            png=f"{RESULTS}/figures/mcinerney_fig3.png",
            pdf=f"{RESULTS}/figures/mcinerney_fig3.pdf",
            caption=f"{RESULTS}/figures/mcinerney_fig3.md",
        params:
            experiment="mcinerney_fig1",
            datasets=" ".join(mcinerney_datasets("mcinerney_fig1")),
        log:
            f"{RESULTS}/logs/figures/mcinerney_fig3.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {MCINERNEY_SCRIPTS}/mcinerney_fig3.py --traces {input.traces} --experiment {params.experiment} "
            "--datasets {params.datasets} --png {output.png} --pdf {output.pdf} --caption {output.caption} > {log} 2>&1"
