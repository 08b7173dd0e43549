"""Assemble the paper from the template in paper/, every figure and table in paper order, the findings and the
provenance: as Markdown (topicbench.md), as Typst source (topicbench.typ) and as a PDF typeset by the ``typst`` Python
package (no TeX). Run by the paper rule's ``script:`` directive (workflow/rules/paper.smk).

Typst text is written only as string literals in code mode ("..." with \\ and " escaped), never as markup, so no
character of a caption can change the layout. Where ``typst`` is not installed or fails, the PDF is drawn by a plain
matplotlib fallback that says so on its first page and in the log, and never passes for the Typst one.
"""

import json
import os
import re
import sys
from importlib import metadata
from io import BytesIO as io_bytes
from pathlib import Path

import pandas as pd

from topicbench import io
from topicbench.traces import BUILT_BY, DRAWN_FROM, PICTURE, TABLE, run_columns

PACKAGES = ["topicbench", "numpy", "scipy", "numba", "pandas", "pyarrow", "matplotlib", "snakemake", "gensim",
            "scikit-learn", "typst"]
CELL = re.compile(r"(?<!\\)\|")


# -- blocks: the paper as a list of (kind, ...) tuples, rendered to Markdown, Typst and the fallback ---------------

def parse_markdown(text: str, base: int = 0) -> list[tuple]:
    """Headings, paragraphs and pipe tables of a small Markdown text (what the template and the parts use)."""
    blocks, para, table = [], [], []

    def flush():
        if para:
            blocks.append(("para", " ".join(para)))
            para.clear()
        if table:
            rows = [[c.strip().replace("\\|", "|") for c in CELL.split(line.strip())[1:-1]] for line in table]
            blocks.append(("table", rows[0], [r for r in rows[2:]]))
            table.clear()

    for line in text.splitlines():
        if line.startswith("<!--"):
            continue  # a record for the build (a part's DRAWN_FROM), not text
        if line.startswith("#"):
            flush()
            level = len(line) - len(line.lstrip("#"))
            blocks.append(("heading", level + base, line.lstrip("#").strip()))
        elif line.strip().startswith("|"):
            if para:
                flush()
            table.append(line)
        elif not line.strip():
            flush()
        else:
            if table:
                flush()
            para.append(line.strip())
    flush()
    return blocks


def part_blocks(md_path: str, png: str | None) -> list[tuple]:
    """A figure or table part: its title as a level-3 heading, the picture with the caption, then its body."""
    blocks = parse_markdown(Path(md_path).read_text(encoding="utf-8"))
    title = blocks[0][2] if blocks and blocks[0][0] == "heading" else Path(md_path).stem
    rest = blocks[1:] if blocks and blocks[0][0] == "heading" else blocks
    caption = rest[0][1] if rest and rest[0][0] == "para" else ""
    rest = rest[1:] if caption else rest
    out = [("heading", 3, title)]
    out.append(("figure", png, caption) if png else ("para", caption))
    return out + rest


def to_markdown(blocks, out_dir: Path) -> str:
    lines = []
    for block in blocks:
        kind = block[0]
        if kind == "heading":
            lines.append("#" * block[1] + " " + block[2])
        elif kind == "para":
            lines.append(block[1])
        elif kind == "figure":
            lines.append(f"![{Path(block[1]).stem}]({os.path.relpath(block[1], out_dir)})\n\n{block[2]}")
        elif kind == "table":
            header, rows = block[1], block[2]
            esc = lambda c: str(c).replace("|", "\\|")  # noqa: E731
            lines.append("\n".join(["| " + " | ".join(map(esc, header)) + " |", "|" + "---|" * len(header)]
                                   + ["| " + " | ".join(map(esc, r)) + " |" for r in rows]))
        lines.append("")
    return "\n".join(lines)


def typst_str(text: str) -> str:
    """A Typst string literal; Markdown's inline-code backticks are dropped (the PDF sets no code spans)."""
    return '"' + str(text).replace("`", "").replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def column_widths(header, rows) -> str:
    """Fractions by each column's longest cell (square root, so long prose does not starve short columns)."""
    longest = [max([len(str(h))] + [len(str(r[i])) for r in rows if i < len(r)]) for i, h in enumerate(header)]
    return "(" + ", ".join(f"{max(1.0, min(n, 400)) ** 0.5:.2f}fr" for n in longest) + ",)"


def to_typst(blocks, root: Path, title: str) -> str:
    out = [f"#set document(title: {typst_str(title)})",
           '#set page(paper: "a4", margin: (x: 1.8cm, y: 2cm), numbering: "1")',
           "#set text(size: 9.5pt)",
           "#set par(justify: true)",
           "#set heading(numbering: \"1.1\")",
           "#show figure: set block(breakable: true)",
           f"#align(center, text(size: 15pt, weight: \"bold\", {typst_str(title)}))"]
    for block in blocks:
        kind = block[0]
        if kind == "heading":
            if block[1] == 1:
                continue  # the title, set above
            out.append(f"#heading(level: {block[1] - 1}, {typst_str(block[2])})")
        elif kind == "para":
            out.append(f"#par({typst_str(block[1])})")
        elif kind == "figure":
            path = "/" + Path(os.path.relpath(block[1], root)).as_posix()
            out.append(f"#figure(image({typst_str(path)}, width: 100%), caption: text(size: 8pt, {typst_str(block[2])}))")
        elif kind == "table":
            header, rows = block[1], block[2]
            cells = [f"strong({typst_str(h)})" for h in header]
            header_cells = "table.header(" + ", ".join(cells) + ")"
            body = ", ".join(typst_str(c) for r in rows for c in (list(r) + [""] * len(header))[:len(header)])
            size = "7pt" if len(header) > 5 else "8pt"
            out.append(f"#text(size: {size}, table(columns: {column_widths(header, rows)}, stroke: 0.4pt, "
                       f"inset: 3pt, {header_cells}{', ' + body if body else ''}))")
    return "\n".join(out) + "\n"


def wrap_to_width(text: str, width_of, room: float) -> list[str]:
    """``text`` in greedy lines whose width (``width_of``, in points) fits ``room`` points; a word wider than a line (a
    checksum, a path) is cut where it fills one. Measured, not counted: capitals and digits are twice as wide as 'i'."""
    lines, line = [], ""
    for word in text.split():
        while width_of(word) > room:  # cut where it fills the line it would start on
            head = f"{line} " if line else ""
            lo, hi = 0, len(word)  # the longest prefix that fits after the line's words
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if width_of(head + word[:mid]) <= room else (lo, mid - 1)
            lo = lo or (0 if line else 1)  # a character wider than a whole line goes alone
            lines.append(head + word[:lo] if lo else line)
            word, line = word[lo:], ""
        candidate = f"{line} {word}" if line else word
        if line and width_of(candidate) > room:
            lines.append(line)
            candidate = word
        line = candidate
    return lines + [line] if line else lines or [""]


def fallback_pdf(blocks, pdf: str, title: str, why: str) -> None:
    """A plain PDF drawn with matplotlib: wrapped text, the pictures, tables as one paragraph per row."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    layout = TextToPath()

    W, H, margin = 8.27, 11.69, 0.7
    body = list(blocks[1:] if blocks and blocks[0][0] == "heading" and blocks[0][1] == 1 else blocks)
    items = [("heading", 1, title), ("para", f"[This PDF was drawn by the plain matplotlib fallback, not Typst: {why}.]")]
    items += body
    with io.atomic_path(pdf) as tmp, PdfPages(tmp) as pages:
        fig, y = None, 0.0

        def new_page():
            nonlocal fig, y
            if fig is not None:
                pages.savefig(fig)
                plt.close(fig)
            fig, y = plt.figure(figsize=(W, H)), H - margin

        def text(s, size, weight="normal", family="serif"):
            nonlocal y
            font = FontProperties(family=family, weight=weight, size=size)
            width_of = lambda line: layout.get_text_width_height_descent(line, font, ismath=False)[0]  # noqa: E731
            # the text width less half an em: a rasterised glyph's box runs a few points past its advance
            for line in wrap_to_width(s.replace("`", ""), width_of, (W - 2 * margin) * 72 - size / 2):
                if y < margin + size / 72 * 1.4:
                    new_page()
                fig.text(margin / W, y / H, line, fontsize=size, weight=weight, family=family, va="top",
                         parse_math=False)  # as measured: "$5 and $6" is text, not mathtext
                y -= size / 72 * 1.35
            y -= size / 72 * 0.6

        new_page()
        for block in items:
            if block[0] == "heading":
                text(block[2], {1: 14, 2: 12, 3: 10.5}.get(block[1], 10), "bold")
            elif block[0] == "para":
                text(block[1], 8.5)
            elif block[0] == "figure":
                image = mpimg.imread(block[1])
                h = min((W - 2 * margin) * image.shape[0] / image.shape[1], H - 2 * margin - 1.5)
                w = h * image.shape[1] / image.shape[0]
                if y - h < margin:
                    new_page()
                ax = fig.add_axes([margin / W, (y - h) / H, w / W, h / H])
                ax.imshow(image)
                ax.axis("off")
                y -= h + 0.1
                text(block[2], 7)
            elif block[0] == "table":
                header, rows = block[1], block[2]
                for row in rows:
                    text("; ".join(f"{h}: {c}" for h, c in zip(header, row) if str(c)), 7, family="monospace")
        pages.savefig(fig)
        plt.close(fig)


def compile_pdf(blocks, typ: str, pdf: str, root: Path, title: str) -> str:
    """Typst when it is installed and compiles; else the fallback. Returns which typeset the PDF."""
    try:
        import typst
    except ImportError:
        why = "the typst Python package is not installed (pip install typst)"
    else:
        try:
            data = typst.compile(typ, root=str(root))  # bytes (no output path: typst infers the format from its suffix)
            with io.atomic_path(pdf) as tmp:
                Path(tmp).write_bytes(data)
            return f"typst {metadata.version('typst')}"
        except Exception as error:  # a Typst error is reported, never silently replaced
            why = f"typst failed: {error}"
    print(f"WARNING: {why}; drawing the PDF with the matplotlib fallback", file=sys.stderr)
    fallback_pdf(blocks, pdf, title, why)
    return f"matplotlib fallback: {why}"


# -- provenance ------------------------------------------------------------------------------------------------

def versions() -> str:
    found = []
    for name in PACKAGES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return ", ".join(found)


def benchmark_summary(paths) -> str:
    """Job wall time and peak memory from Snakemake's benchmark records of the fit and prepare jobs."""
    frames = []
    for path in paths:
        frame = pd.read_csv(path, sep="\t")
        # a prepare's record is <results>/benchmarks/prepare/<dataset>.tsv; "/prepare/" elsewhere in the path (an
        # experiment or dataset named prepare, a results_dir under a folder of that name) is a fit's
        frame["job"] = "prepare" if (Path(path).parent.name, Path(path).parent.parent.name) == ("prepare", "benchmarks") \
            else "fit"
        frames.append(frame)
    if not frames:
        return "No benchmark records."
    bench = pd.concat(frames, ignore_index=True)
    parts = [f"{job}: {len(g)} jobs, {g['s'].sum():,.0f} s wall in total (longest {g['s'].max():,.1f} s), peak memory "
             f"{g['max_rss'].max():,.0f} MB" for job, g in bench.groupby("job")]
    return "Job benchmarks (Snakemake benchmark: records): " + "; ".join(parts) + "."


def provenance(traces: pd.DataFrame, bench: list[str], profile: str, typeset: str) -> list[tuple]:
    run_keys = run_columns(traces.columns)
    runs = traces[run_keys].astype(str).drop_duplicates()
    seeds = traces.groupby("experiment")["seed"].apply(lambda s: ", ".join(map(str, sorted(s.unique()))))
    corpora = traces.groupby("dataset")["corpus_size"].max()
    recorded = [c for c in ("topicbench_version", "python_version", "numpy_version", "scipy_version", "numba_version",
                            "pandas_version") if c in traces]
    at_fit = "; ".join(f"{c.replace('_version', '')} {', '.join(sorted(traces[c].astype(str).unique()))}" for c in recorded)
    return [
        ("heading", 2, "Provenance"),
        ("para", f"Results directory: {profile}. {len(runs)} runs, {len(traces)} checkpoints, {traces['experiment'].nunique()} "
                 f"experiments. Code version(s) of the fits: {', '.join(sorted(traces['git_sha'].astype(str).unique()))}."),
        ("para", f"Package versions recorded by the fits: {at_fit}. Packages of this build: {versions()}. "
                 f"Typeset by: {typeset}."),
        ("para", "Seeds per experiment: " + "; ".join(f"{e}: {s}" for e, s in seeds.items()) + "."),
        ("para", "Corpora (training documents): " + ", ".join(f"{d} {int(n):,}" for d, n in corpora.items()) + "."),
        ("para", f"{benchmark_summary(bench)} Wall time of the fits by experiment (sum of fit_wall_s at the last "
                 "checkpoint): " + ", ".join(f"{e} {s:,.1f} s" for e, s in
                                            traces.sort_values("docs_seen", kind="stable").groupby(run_keys, dropna=False).tail(1)
                                            .groupby("experiment")["fit_wall_s"].sum().items()) + "."),
    ]


def check_parts(parts, traces: str, digest: str) -> None:
    """Every figure and table part was drawn from this very all_traces.parquet (by its sha256), and every figure's
    png and table's csv is the one written with its part (by its sha256), so the paper never sets results of two
    aggregates side by side (e.g. after --allowed-rules, --touch or a figure put back by hand) nor a picture or table
    replaced by hand (the findings csv gives the paper's verdict counts)."""
    for part in parts:
        lines = Path(part["md"]).read_text(encoding="utf-8").splitlines()
        recorded = lines[-1].removeprefix(DRAWN_FROM).removesuffix(" -->") if lines and lines[-1].startswith(
            DRAWN_FROM) else None
        if recorded != digest:
            raise SystemExit(f"{part['md']} was drawn from {'another' if recorded else 'an unrecorded'} "
                             f"all_traces.parquet than {traces}: the paper is not built from figures of two different "
                             f"aggregates. Draw that figure again (snakemake --forcerun <its figure_ rule>)")
        prefix, path = (PICTURE, part["png"]) if part["png"] else (TABLE, str(Path(part["md"]).with_suffix(".csv")))
        drawn = [line.removeprefix(prefix).removesuffix(" -->") for line in lines if line.startswith(prefix)]
        if drawn[-1:] != [io.file_sha256(path)]:
            raise SystemExit(f"{path} is not the {'picture' if part['png'] else 'table'} written with {part['md']} ("
                             f"{'another sha256' if drawn else 'none recorded'}): replaced or copied in by hand. Draw "
                             f"that figure again (snakemake --forcerun <its figure_ rule>)")


def code_sha256(script, template) -> str:
    """The sha256 of the code that builds the paper: this script (the repository's file: Snakemake runs a copy with a
    preamble) and the template, each by name and content."""
    import hashlib

    digest = hashlib.sha256()
    for path in (Path(script), Path(template)):
        digest.update(f"{path.name}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\0".encode())
    return digest.hexdigest()


def stale_paper(paper_md, script, template) -> dict[str, str]:
    """{paper_md: why} when the paper records other building code than this script and the template hold now
    (Snakemake sees only mtimes: a paper copied in, or marked current by --touch after an edit); {} when it records
    the current code, records none (built before the record existed) or is not there."""
    try:
        lines = Path(paper_md).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    recorded = [line.removeprefix(BUILT_BY).removesuffix(" -->") for line in lines if line.startswith(BUILT_BY)]
    if recorded and recorded[-1] != code_sha256(script, template):
        return {str(paper_md): "it was built by other code than workflow/scripts/build_paper.py and the paper "
                               "template hold now"}
    return {}


def main(smk):
    import hashlib

    data = Path(smk.input.traces).read_bytes()
    check_parts(smk.params.parts, smk.input.traces, hashlib.sha256(data).hexdigest())
    traces = pd.read_parquet(io_bytes(data))
    out_md, out_typ, out_pdf = Path(smk.output.md), Path(smk.output.typ), Path(smk.output.pdf)
    root = out_pdf.parent.parent.resolve()  # the results directory: every picture lies under it
    template = parse_markdown(Path(smk.input.template).read_text(encoding="utf-8"))
    title = template[0][2] if template and template[0][0] == "heading" else "topicbench"
    sections = {}
    for part in smk.params.parts:  # in paper order: {paper, title, md, png}
        sections.setdefault(part["paper"], []).extend(part_blocks(part["md"], part["png"]))
    findings = sections.pop("findings", [("para", "The findings table is not part of this build.")])
    mirrors = []
    for paper, title_of in smk.params.papers.items():
        if paper in sections:
            mirrors += [("heading", 2, title_of)] + sections[paper]
    verdicts = ""
    for part in smk.params.parts:
        if part["paper"] == "findings":
            counts = pd.read_csv(Path(part["md"]).with_suffix(".csv"))["verdict"].value_counts()
            verdicts = (f" Of the {counts.sum()} claims of the findings table, "
                        + ", ".join(f"{n} {verdict}" for verdict, n in counts.items()) + " on this build.")
    summary = (f"This build aggregates {len(traces)} checkpoints of the runs of {traces['experiment'].nunique()} "
               f"experiments.{verdicts}")
    blocks = []
    for block in template:
        if block[0] == "para" and block[1] == "{{summary}}":
            blocks.append(("para", summary))
        elif block[0] == "para" and block[1] == "{{mirrors}}":
            blocks += mirrors
        elif block[0] == "para" and block[1] == "{{findings}}":
            blocks += [b for b in findings if not (b[0] == "heading" and b[1] == 3)]
        elif block[0] == "para" and block[1] == "{{provenance}}":
            blocks.append(("provenance",))
        else:
            blocks.append(block)
    def assemble(typeset):
        final = []
        for block in blocks:
            final += (provenance(traces, list(smk.input.benchmarks), str(root), typeset)
                      if block[0] == "provenance" else [block])
        return final

    try:
        import typst  # noqa: F401

        typeset = f"typst {metadata.version('typst')}"
    except ImportError:
        typeset = "matplotlib fallback: the typst Python package is not installed (pip install typst)"
    final = assemble(typeset)
    # the rule names its script; main() called by hand (tests) runs this very file
    code = code_sha256(getattr(smk.input, "script", __file__), smk.input.template)
    with io.written_together():  # the three files are one paper: a failure or kill before all are written keeps the old
        with io.atomic_path(out_typ) as typ:  # held back, so Typst compiles this staged copy beside out_typ
            typ.write_text(to_typst(final, root, title), encoding="utf-8")
        used = compile_pdf(final, str(typ), str(out_pdf), root, title)
        if used != typeset:  # typst failed: the fallback's provenance says so
            final = assemble(used)
            fallback_pdf(final, str(out_pdf), title, used.removeprefix("matplotlib fallback: "))
        io.write_text(out_md, to_markdown(final, out_md.parent) + f"{BUILT_BY}{code} -->\n")
    print(json.dumps({"typeset": used, "blocks": len(final)}))


if __name__ == "__main__" and "snakemake" in globals():
    main(snakemake)  # noqa: F821
