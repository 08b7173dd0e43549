# Stage 4: every figure and table of every mirrored paper, one file each in workflow/figures/ (see figlib.py for the
# contract), built by ONE rule definition instantiated per figure file whose experiments are in the config.
import os
import sys

sys.path.insert(0, os.path.join(workflow.basedir, "workflow", "scripts"))
import figlib

FIGURES = figlib.discover(list(config.get("experiments") or {}))
if workflow.is_main_process:  # a part drawn by other code than the figure's files hold now (--touch, copied in)
    force_stale(figlib.stale_figures(RESULTS, FIGURES))


def figure_outputs(name):
    """The declared outputs of a figure file, under the results directory; pictures and tables flagged for the report
    with the caption the draw writes and the paper as the category."""
    figure, _ = FIGURES[name]
    paths = {role: f"{RESULTS}/{path}" for role, path in figure.outputs(name).items()}
    shown = "png" if figure.kind == "figure" else "csv"
    paths[shown] = report(paths[shown], caption=os.path.abspath(paths["rst"]), category=figlib.PAPERS[figure.paper],
                          labels={"figure": figure.title})
    return paths


def figure_inputs(name):
    figure, experiments = FIGURES[name]
    models = figure_models(name)
    return {"traces": f"{RESULTS}/all_traces.parquet", "plugin": str(figlib.PLUGIN_DIR / f"{name}.py"),
            "helpers": [str(path) for path in figlib.helper_files(name)],
            "figlib": repo_file("workflow/scripts/figlib.py"),
            "corpora": [corpus_json(experiment_dataset(e)) for e in experiments], "models": list(models.values())}


def figure_models(name):
    """experiment/label -> model.npz of the first run with that label, for each label the figure declares."""
    figure, experiments = FIGURES[name]
    return {f"{e}/{label}": f"{RESULTS}/runs/{first_run(e, label)}/model.npz"
            for e in experiments for label in figure.models if any(f"/label~{label}/" in r for r in runs_of(e))}


def paper_parts():
    """Each built figure's Markdown part and picture, in paper order, with its paper (the section)."""
    parts = []
    for name, (figure, _) in FIGURES.items():
        outputs = figure.outputs(name)
        parts.append({"paper": figure.paper, "title": figure.title, "md": f"{RESULTS}/{outputs['md']}",
                      "png": f"{RESULTS}/{outputs['png']}" if "png" in outputs else None})
    return parts


def benchmark_files():
    return [f"{RESULTS}/benchmarks/runs/{rid}.tsv" for rid in RUNS] + [
        f"{RESULTS}/benchmarks/prepare/{d}.tsv" for d in sorted({entry["dataset"] for entry in RUNS.values()})
    ]


for _name, (_figure, _experiments) in FIGURES.items():
    FIGURE_TARGETS.extend(str(path) for path in figure_outputs(_name).values())

    rule:
        name:
            f"figure_{_name}"
        input:
            **figure_inputs(_name),
        output:
            **figure_outputs(_name),
        params:
            figure=_name,
            experiments=_experiments,
            corpora={e: os.path.dirname(corpus_json(experiment_dataset(e))) for e in _experiments},
            models=figure_models(_name),
        log:
            f"{RESULTS}/logs/figures/{_name}.log",
        localrule: True
        threads: 1
        conda:
            "../envs/topicbench.yaml"
        script:
            "../scripts/draw_figure.py"
