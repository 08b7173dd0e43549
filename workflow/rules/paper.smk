# Stage 5: the paper, assembled from the template in paper/ and every figure's caption and table.


rule paper:
    input:
        template="paper/topicbench.md",
        script="workflow/scripts/build_paper.py",
        parts=[target for target in FIGURE_TARGETS if target.endswith(".md")],
        figures=[target for target in FIGURE_TARGETS if target.endswith(".png")],
        traces=f"{RESULTS}/all_traces.parquet",
    output:
        paper=f"{RESULTS}/paper/topicbench.md",
    log:
        f"{RESULTS}/logs/paper.log",
    threads: 1
    conda:
        "../envs/topicbench.yaml"
    shell:
        "python {input.script} --template {input.template} --traces {input.traces} "
        "--out {output.paper} {input.parts} > {log} 2>&1"
