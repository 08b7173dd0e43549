# Stage 4 (Hoffman, Blei and Bach 2010): Figure 1, Figure 2 and Table 1, from all_traces.parquet.

if has_experiment("hoffman_fig1"):
    FIGURE_TARGETS.extend(expand(f"{RESULTS}/figures/hoffman_fig1.{{ext}}", ext=["png", "pdf", "md"]))

    rule hoffman_fig1:
        input:
            traces=f"{RESULTS}/all_traces.parquet",
            corpus=corpus_json(experiment_dataset("hoffman_fig1")),
            script="workflow/scripts/hoffman_fig1.py",
            figlib="workflow/scripts/figlib.py",
            model=f"{RESULTS}/runs/{first_run('hoffman_fig1', 'online_full')}/model.npz",
        output:
            png=f"{RESULTS}/figures/hoffman_fig1.png",
            pdf=f"{RESULTS}/figures/hoffman_fig1.pdf",
            caption=f"{RESULTS}/figures/hoffman_fig1.md",
        params:
            experiment="hoffman_fig1",
            vocab=lambda wildcards, input: input.corpus.replace("corpus.json", "vocab.txt"),
        log:
            f"{RESULTS}/logs/figures/hoffman_fig1.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --traces {input.traces} --experiment {params.experiment} "
            "--corpus-json {input.corpus} --vocab {params.vocab} --model {input.model} "
            "--png {output.png} --pdf {output.pdf} --caption {output.caption} > {log} 2>&1"


if has_experiment("hoffman_fig2"):
    FIGURE_TARGETS.extend(expand(f"{RESULTS}/figures/hoffman_fig2.{{ext}}", ext=["png", "pdf", "md"]))

    rule hoffman_fig2:
        input:
            traces=f"{RESULTS}/all_traces.parquet",
            corpus=corpus_json(experiment_dataset("hoffman_fig2")),
            script="workflow/scripts/hoffman_fig2.py",
            figlib="workflow/scripts/figlib.py",
        output:
            png=f"{RESULTS}/figures/hoffman_fig2.png",
            pdf=f"{RESULTS}/figures/hoffman_fig2.pdf",
            caption=f"{RESULTS}/figures/hoffman_fig2.md",
        params:
            experiment="hoffman_fig2",
        log:
            f"{RESULTS}/logs/figures/hoffman_fig2.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --traces {input.traces} --experiment {params.experiment} "
            "--corpus-json {input.corpus} --png {output.png} --pdf {output.pdf} --caption {output.caption} > {log} 2>&1"


if has_experiment("hoffman_table1"):
    FIGURE_TARGETS.extend([f"{RESULTS}/tables/hoffman_table1.md", f"{RESULTS}/tables/hoffman_table1_grid.csv"])

    rule hoffman_table1:
        input:
            traces=f"{RESULTS}/all_traces.parquet",
            corpus=corpus_json(experiment_dataset("hoffman_table1")),
            script="workflow/scripts/hoffman_table1.py",
            figlib="workflow/scripts/figlib.py",
        output:
            table=f"{RESULTS}/tables/hoffman_table1.md",
            grid=f"{RESULTS}/tables/hoffman_table1_grid.csv",
        params:
            experiment="hoffman_table1",
        log:
            f"{RESULTS}/logs/figures/hoffman_table1.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --traces {input.traces} --experiment {params.experiment} "
            "--corpus-json {input.corpus} --table {output.table} --grid-csv {output.grid} > {log} 2>&1"
