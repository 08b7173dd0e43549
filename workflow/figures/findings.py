"""The findings: each mirrored paper's claims (``_claims.CLAIMS``) with the figure or table it rests on, judged from
this build's traces: verdict, numbers, spread over replicates and the test (see ``_claims`` for the rules)."""
import figlib
import pandas as pd
from _claims import CLAIMS, LEVEL

FIGURE = figlib.Figure(paper="findings", title="Findings: the papers' claims, judged", experiments=("*",),
                       kind="table", models=("cnmf",))
PAPERS = {**figlib.PAPERS, "scaling": "Scaling (this harness)", "harness": "This harness"}


def draw(ctx):
    rows = []
    for claim in CLAIMS:
        j = claim["judge"](ctx)
        rows.append({"paper": PAPERS[claim["paper"]], "claim": claim["claim"], "rests on": claim["rests_on"],
                     "verdict": j.verdict, "n": j.n, "numbers": j.numbers, "spread": j.spread, "test": j.test})
    table = pd.DataFrame(rows)
    counts = table["verdict"].value_counts()
    caption = ("Each claim of the mirrored papers with the figure or table it rests on, judged on this build's final "
               f"checkpoints. Replicates (n) are seeds, and corpora or panels where a claim spans several; paired "
               f"differences are tested with a two-sided t test at the {LEVEL:.0%} level. Reproduced: the test supports "
               "the claim; not reproduced: it contradicts it (or the method never reaches the target within the "
               "reference's time); mixed: the difference is inside the noise or the claim's parts disagree; cannot be "
               "judged: one replicate, the fast method stopped before the reference reached the target, or the "
               "experiment is not in this profile. This build: "
               + ", ".join(f"{counts[v]} {v}" for v in counts.index) + ".")
    ctx.write(caption, figlib.markdown_table(table), table)
