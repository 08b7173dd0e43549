# Stage 1: prepare each configured corpus once into the workflow's data directory. Memory from the config
# (mem_mb_per_prepare); on a cluster the prepares are grouped like the fits (group "prepare", one
# group_slots each: see fit.smk).


rule prepare_corpus:
    input:
        files=dataset_inputs,
        code=prepare_code,
    output:
        corpus=f"{DATA}/corpora/{{dataset}}/corpus.json",
    params:
        recipe=lambda wildcards: config["datasets"][wildcards.dataset]["recipe"],
        recipe_params=dataset_params,
        corpora_dir=corpora_dir_arg,
        corpus_dir=lambda wildcards: f"{DATA}/corpora/{wildcards.dataset}",
    log:
        f"{RESULTS}/logs/prepare/{{dataset}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/prepare/{{dataset}}.tsv"
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=config["mem_mb_per_prepare"],
        group_slots=1,
    conda:
        "../envs/topicbench.yaml"
    shell:
        "topicbench prepare {params.recipe:q} --out={params.corpus_dir:q} "
        "--name={wildcards.dataset:q} {params.corpora_dir} {params.recipe_params} > {log:q} 2>&1"
