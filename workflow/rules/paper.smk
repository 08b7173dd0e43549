# Stage 5: the paper (Markdown, Typst source and PDF) from the template in paper/, every figure file's caption and
# picture in paper order (figures_plugins.smk), the findings and the provenance, with the fits' benchmark records.
import build_paper  # beside figlib (figures_plugins.smk put workflow/scripts on the path)

if workflow.is_main_process:  # a paper built by other code than its script and template hold now (--touch, copied in)
    force_stale(build_paper.stale_paper(f"{RESULTS}/paper/topicbench.md", repo_file("workflow/scripts/build_paper.py"),
                                        repo_file("paper/topicbench.md")))
    # the benchmarks table drawn by other code than its script and figlib, or beside another picture
    force_stale(figlib.stale_benchmarks(f"{RESULTS}/tables/benchmarks.csv", f"{RESULTS}/figures/benchmarks.png"))


rule paper:
    input:
        template=repo_file("paper/topicbench.md"),
        script=repo_file("workflow/scripts/build_paper.py"),
        parts=[part["md"] for part in paper_parts()],
        pictures=[part["png"] for part in paper_parts() if part["png"]],
        traces=f"{RESULTS}/all_traces.parquet",
        benchmarks=benchmark_files(),
    output:
        md=f"{RESULTS}/paper/topicbench.md",
        typ=f"{RESULTS}/paper/topicbench.typ",
        pdf=report(f"{RESULTS}/paper/topicbench.pdf", caption="../report/paper.rst", category="Paper"),
    params:
        parts=paper_parts(),
        papers=figlib.PAPERS,
    log:
        f"{RESULTS}/logs/paper.log",
    localrule: True
    threads: 1
    conda:
        "../envs/topicbench.yaml"
    script:
        "../scripts/build_paper.py"


rule benchmarks:
    input:
        records=benchmark_files(),
        traces=trace_files(RUNS),  # each row's provenance: a fit's trace, a prepare's corpus.json
        corpora=[corpus_json(d) for d in sorted({entry["dataset"] for entry in RUNS.values()})],
        script=repo_file("workflow/scripts/benchmarks_table.py"),
        figlib=repo_file("workflow/scripts/figlib.py"),
    output:
        table=report(f"{RESULTS}/tables/benchmarks.csv", caption="../report/benchmarks.rst", category="Benchmarks"),
        figure=report(f"{RESULTS}/figures/benchmarks.png", caption="../report/benchmarks.rst", category="Benchmarks"),
    log:
        f"{RESULTS}/logs/benchmarks.log",
    localrule: True
    threads: 1
    conda:
        "../envs/topicbench.yaml"
    script:
        "../scripts/benchmarks_table.py"


FIGURE_TARGETS.extend([f"{RESULTS}/paper/topicbench.pdf", f"{RESULTS}/tables/benchmarks.csv"])
