# Stage 4 (Paisley, Blei and Jordan 2014): Figure 11.3 from all_traces.parquet; Figure 11.4 and Tables 11.3-11.4
# from the model of the paisley_fig11_4 experiment's C-NMF run (topic locations and topics).

if has_experiment("paisley_fig11_3"):
    FIGURE_TARGETS.extend(expand(f"{RESULTS}/figures/paisley_fig11_3.{{ext}}", ext=["png", "pdf", "md"]))

    rule paisley_fig11_3:
        input:
            traces=f"{RESULTS}/all_traces.parquet",
            corpus=corpus_json(experiment_dataset("paisley_fig11_3")),
            script="workflow/scripts/paisley_fig11_3.py",
            figlib="workflow/scripts/figlib.py",
        output:
            png=f"{RESULTS}/figures/paisley_fig11_3.png",
            pdf=f"{RESULTS}/figures/paisley_fig11_3.pdf",
            caption=f"{RESULTS}/figures/paisley_fig11_3.md",
        params:
            experiment="paisley_fig11_3",
        log:
            f"{RESULTS}/logs/figures/paisley_fig11_3.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --traces {input.traces} --experiment {params.experiment} "
            "--corpus-json {input.corpus} --png {output.png} --pdf {output.pdf} --caption {output.caption} > {log} 2>&1"


if has_experiment("paisley_fig11_4"):
    FIGURE_TARGETS.extend(expand(f"{RESULTS}/figures/paisley_fig11_4.{{ext}}", ext=["png", "pdf", "md"]))
    FIGURE_TARGETS.extend([f"{RESULTS}/tables/paisley_table11_3.md", f"{RESULTS}/tables/paisley_table11_4.md"])

    rule paisley_fig11_4:
        input:
            corpus=corpus_json(experiment_dataset("paisley_fig11_4")),
            script="workflow/scripts/paisley_fig11_4.py",
            figlib="workflow/scripts/figlib.py",
            model=f"{RESULTS}/runs/{first_run('paisley_fig11_4', 'cnmf')}/model.npz",
        output:
            png=f"{RESULTS}/figures/paisley_fig11_4.png",
            pdf=f"{RESULTS}/figures/paisley_fig11_4.pdf",
            caption=f"{RESULTS}/figures/paisley_fig11_4.md",
        log:
            f"{RESULTS}/logs/figures/paisley_fig11_4.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --model {input.model} --corpus-json {input.corpus} "
            "--png {output.png} --pdf {output.pdf} --caption {output.caption} > {log} 2>&1"

    rule paisley_tables:
        input:
            corpus=corpus_json(experiment_dataset("paisley_fig11_4")),
            script="workflow/scripts/paisley_tables.py",
            figlib="workflow/scripts/figlib.py",
            model=f"{RESULTS}/runs/{first_run('paisley_fig11_4', 'cnmf')}/model.npz",
        output:
            top=f"{RESULTS}/tables/paisley_table11_3.md",
            rest=f"{RESULTS}/tables/paisley_table11_4.md",
        params:
            vocab=lambda wildcards, input: input.corpus.replace("corpus.json", "vocab.txt"),
        log:
            f"{RESULTS}/logs/figures/paisley_tables.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --model {input.model} --corpus-json {input.corpus} --vocab {params.vocab} "
            "--table-top {output.top} --table-rest {output.rest} > {log} 2>&1"
