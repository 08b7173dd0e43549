# Stage 2: fit one (dataset, method, hyperparameters, seed) per job. The three outputs are staged beside the
# run folder and swapped in as one unit (topicbench.run.write_outputs), so a killed job leaves a whole run or
# none, never a mix; the old run, which Snakemake deletes before the job, is kept aside and put back if the job
# does not complete (topicbench.previous, via the Snakefile's onstart/onsuccess/onerror). `exec` makes the fit Snakemake's own child and --exit-with-parent stops it when Snakemake
# dies (the one whose pid common.smk exports, so also one killed while the fit starts), so no orphaned fit writes into a
# run folder later. Every value in the command is shell-quoted and joined to
# its flag with '=' (a results_dir starting with '-' is a value, not an option).
# Threads and memory come from the config only (threads_per_run, mem_mb_per_run; the profiles set neither).
# The group "fits" only matters on a cluster: `group-components: fits=N` (profiles/slurm) submits N fits as
# one job, so the per-job start-up (a Snakemake start, the scheduler's latency) is paid once per N fits. The
# job runs its fits one after another (the SLURM plugin starts the job's Snakemake with --jobs 1), so each fit
# takes one `group_slots`: with the profile's `resources: group_slots=1` Snakemake stacks the group's fits in
# series and the job asks for one fit's CPUs and memory (and N fits' runtime), not N fits'.


rule fit:
    input:
        corpus=lambda wildcards: corpus_json(RUNS[wildcards.run_id]["dataset"]),
        code=fit_code,
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
    group:
        "fits"
    threads: config["threads_per_run"]
    resources:
        mem_mb=config["mem_mb_per_run"],
        group_slots=1,
    conda:
        "../envs/topicbench.yaml"
    shell:
        "exec topicbench run --exit-with-parent --corpus={params.corpus_dir:q} --out={params.out_dir:q} "
        "--spec-json={params.spec:q} --threads={threads} > {log:q} 2>&1"
