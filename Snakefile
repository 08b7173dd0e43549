# topicbench: prepare corpora, fit every method over its grid, score, aggregate, draw the papers' figures.
# Run `snakemake --cores 2` (default profile, embedded synthetic corpora) or pick a profile:
#   snakemake --cores 2 --configfile workflow/config/ci.yaml
#   snakemake --workflow-profile profiles/slurm --configfile workflow/config/paper.yaml
# profiles/default (2 cores, rerun-incomplete) applies unless --workflow-profile names another.
import os

from snakemake.utils import min_version, validate

min_version("8.10")


report: "workflow/report/workflow.rst"


# The default profile's config only when none is given: Snakemake would otherwise merge a
# --configfile into it, leaking default experiments into the ci and paper profiles. Found beside this file:
# Snakemake reads a relative configfile from the working directory (-d, or snakemake -s <repo>/Snakefile elsewhere).
if not config.get("experiments"):

    configfile: os.path.join(workflow.basedir, "workflow/config/default.yaml")


validate(config, "workflow/config/schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/prepare.smk"
include: "workflow/rules/fit.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/figures_plugins.smk"
include: "workflow/rules/paper.smk"


onstart:
    lock_folders(config)  # no second workflow on results_dir or data_dir while this one runs
    mark_folders(config)  # results_dir and data_dir are the workflow's from now on (topicbench.grid.check_folders_owned)
    keep_previous()  # a rerun that fails or is killed leaves the previous result (topicbench.previous)


onsuccess:
    finish_previous()


onerror:
    finish_previous()


rule all:
    input:
        all_targets(),
    default_target: True
