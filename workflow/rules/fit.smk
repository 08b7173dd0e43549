# Stage 2: fit one (dataset, method, hyperparameters, seed) per job. The trace is written last and
# atomically, so a killed job leaves no trace.parquet and the next invocation reruns it.


rule fit:
    input:
        corpus=lambda wildcards: corpus_json(RUNS[wildcards.run_id]["dataset"]),
    output:
        trace=f"{RESULTS}/runs/{{run_id}}/trace.parquet",
        model=f"{RESULTS}/runs/{{run_id}}/model.npz",
        topics=f"{RESULTS}/runs/{{run_id}}/topics.tsv",
    params:
        spec=lambda wildcards: spec_json(wildcards.run_id),
        corpus_dir=lambda wildcards: f"{DATA}/corpora/{RUNS[wildcards.run_id]['dataset']}",
        out_dir=lambda wildcards: f"{RESULTS}/runs/{wildcards.run_id}",
    log:
        f"{RESULTS}/logs/runs/{{run_id}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/runs/{{run_id}}.tsv"
    threads: config.get("threads_per_run", 1)
    resources:
        mem_mb=config.get("mem_mb_per_run", 4000),
    conda:
        "../envs/topicbench.yaml"
    shell:
        "topicbench run --corpus {params.corpus_dir} --out {params.out_dir} "
        "--spec-json {params.spec:q} --threads {threads} > {log} 2>&1"
