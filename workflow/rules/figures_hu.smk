# Stage 4 (Hu, Ryu, Carlson, Wang and Carin 2014): Figs. 1-2 and Table 1 (LG-NMF against variational LDA on two
# small corpora, experiments hu_fig1 and hu_fig2), Fig. 4 (the Laplace posterior over LG-NMF's hyperparameter grid,
# from those experiments' LG-NMF models) and Figs. 5-6 with Table 3 (online LG-NMF against online LDA, hu_fig5).
HU_SMALL = {"1": "PsyRev abstracts", "2": "the 1,740 NIPS papers"}  # what each small-corpus figure stands in for
HU_SMALL_EXPERIMENTS = [f"hu_fig{n}" for n in HU_SMALL if has_experiment(f"hu_fig{n}")]

if HU_SMALL_EXPERIMENTS:
    FIGURE_TARGETS.extend(
        f"{RESULTS}/figures/{name}.{ext}" for name in HU_SMALL_EXPERIMENTS for ext in ["png", "pdf", "md"]
    )
    FIGURE_TARGETS.extend(expand(f"{RESULTS}/figures/hu_fig4.{{ext}}", ext=["png", "pdf", "md"]))
    FIGURE_TARGETS.append(f"{RESULTS}/tables/hu_table1.md")

    rule hu_fig1_2:
        input:
            traces=f"{RESULTS}/all_traces.parquet",
            corpus=lambda wildcards: corpus_json(experiment_dataset(f"hu_fig{wildcards.n}")),
            script="workflow/scripts/hu_fig1_2.py",
            figlib="workflow/scripts/figlib.py",
        output:
            png=f"{RESULTS}/figures/hu_fig{{n}}.png",
            pdf=f"{RESULTS}/figures/hu_fig{{n}}.pdf",
            caption=f"{RESULTS}/figures/hu_fig{{n}}.md",
        wildcard_constraints:
            n="1|2",
        params:
            experiment=lambda wildcards: f"hu_fig{wildcards.n}",
            stands_in_for=lambda wildcards: HU_SMALL[wildcards.n],
        log:
            f"{RESULTS}/logs/figures/hu_fig{{n}}.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --traces {input.traces} --experiment {params.experiment} --figure {wildcards.n} "
            "--stands-in-for '{params.stands_in_for}' --corpus-json {input.corpus} "
            "--png {output.png} --pdf {output.pdf} --caption {output.caption} > {log} 2>&1"

    rule hu_table1:
        input:
            traces=f"{RESULTS}/all_traces.parquet",
            corpora=[corpus_json(experiment_dataset(name)) for name in HU_SMALL_EXPERIMENTS],
            script="workflow/scripts/hu_table1.py",
            figlib="workflow/scripts/figlib.py",
        output:
            table=f"{RESULTS}/tables/hu_table1.md",
        params:
            experiments=" ".join(HU_SMALL_EXPERIMENTS),
        log:
            f"{RESULTS}/logs/figures/hu_table1.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --traces {input.traces} --experiments {params.experiments} "
            "--corpus-json {input.corpora} --table {output.table} > {log} 2>&1"

    rule hu_fig4:
        input:
            models=[f"{RESULTS}/runs/{first_run(name, 'lgnmf')}/model.npz" for name in HU_SMALL_EXPERIMENTS],
            traces=f"{RESULTS}/all_traces.parquet",
            corpora=[corpus_json(experiment_dataset(name)) for name in HU_SMALL_EXPERIMENTS],
            script="workflow/scripts/hu_fig4.py",
            figlib="workflow/scripts/figlib.py",
        output:
            png=f"{RESULTS}/figures/hu_fig4.png",
            pdf=f"{RESULTS}/figures/hu_fig4.pdf",
            caption=f"{RESULTS}/figures/hu_fig4.md",
        params:
            experiments=" ".join(HU_SMALL_EXPERIMENTS),
        log:
            f"{RESULTS}/logs/figures/hu_fig4.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --models {input.models} --corpus-json {input.corpora} --traces {input.traces} "
            "--experiments {params.experiments} --png {output.png} --pdf {output.pdf} --caption {output.caption} > {log} 2>&1"


if has_experiment("hu_fig5"):
    FIGURE_TARGETS.extend(expand(f"{RESULTS}/figures/hu_fig{{n}}.{{ext}}", n=[5, 6], ext=["png", "pdf", "md"]))
    FIGURE_TARGETS.append(f"{RESULTS}/tables/hu_table3.md")

    rule hu_fig5_6:
        input:
            traces=f"{RESULTS}/all_traces.parquet",
            corpus=corpus_json(experiment_dataset("hu_fig5")),
            script="workflow/scripts/hu_fig5_6.py",
            figlib="workflow/scripts/figlib.py",
        output:
            png5=f"{RESULTS}/figures/hu_fig5.png",
            pdf5=f"{RESULTS}/figures/hu_fig5.pdf",
            caption5=f"{RESULTS}/figures/hu_fig5.md",
            png6=f"{RESULTS}/figures/hu_fig6.png",
            pdf6=f"{RESULTS}/figures/hu_fig6.pdf",
            caption6=f"{RESULTS}/figures/hu_fig6.md",
            table=f"{RESULTS}/tables/hu_table3.md",
        params:
            experiment="hu_fig5",
        log:
            f"{RESULTS}/logs/figures/hu_fig5_6.log",
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        shell:
            "python {input.script} --traces {input.traces} --experiment {params.experiment} "
            "--corpus-json {input.corpus} --png5 {output.png5} --pdf5 {output.pdf5} --caption5 {output.caption5} "
            "--png6 {output.png6} --pdf6 {output.pdf6} --caption6 {output.caption6} --table {output.table} > {log} 2>&1"
