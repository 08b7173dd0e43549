# Stage 3: one table of every checkpoint of every run; figures and tables read only this (and models).


rule aggregate:
    input:
        traces=trace_files(RUNS),
    output:
        traces=f"{RESULTS}/all_traces.parquet",
    log:
        f"{RESULTS}/logs/aggregate.log",
    localrule: True
    threads: 1
    conda:
        "../envs/topicbench.yaml"
    shell:
        "topicbench aggregate --out={output.traces:q} -- {input.traces:q} > {log:q} 2>&1"
