# Stage 1: prepare each configured corpus once into the workflow's data directory.


rule prepare_corpus:
    output:
        corpus=f"{DATA}/corpora/{{dataset}}/corpus.json",
    params:
        recipe=lambda wildcards: config["datasets"][wildcards.dataset]["recipe"],
        recipe_params=dataset_params,
        corpora_dir=corpora_dir_arg(),
        corpus_dir=lambda wildcards: f"{DATA}/corpora/{wildcards.dataset}",
    log:
        f"{RESULTS}/logs/prepare/{{dataset}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/prepare/{{dataset}}.tsv"
    threads: 1
    conda:
        "../envs/topicbench.yaml"
    shell:
        "topicbench prepare {params.recipe:q} --out {params.corpus_dir:q} "
        "--name {wildcards.dataset:q} {params.corpora_dir} {params.recipe_params} > {log:q} 2>&1"
