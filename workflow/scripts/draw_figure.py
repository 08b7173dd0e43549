"""The one entry point of the generic figure rule: load the figure file named by the rule and call its draw().

Run by Snakemake's ``script:`` directive (workflow/rules/figures_plugins.smk); everything comes from the rule."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir)))  # noqa: F821 (figlib beside this script)
import figlib  # noqa: E402


def main(smk):
    name = smk.params.figure
    plugin = figlib.load_plugin(name)
    ctx = figlib.Context(name, plugin.FIGURE, smk.params.experiments, smk.input.traces, smk.params.corpora,
                         smk.params.models, dict(smk.output.items()))
    figlib.draw_plugin(plugin, ctx)  # png, pdf, md, rst, csv: all new or all old, never a new picture under an old caption


main(snakemake)  # noqa: F821
