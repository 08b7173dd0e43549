"""datasets/README.md stays current with the recipes, without building them: its parameter list is the registry's,
and its table has a row per recipe (and per listed subset) with the recipe's description. The statistics need every
corpus built (``tools/datasets_table.py``, ~30 s), so they are not checked here."""
import importlib.util
from pathlib import Path

from topicbench.dataset import registry

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "datasets" / "README.md").read_text(encoding="utf-8")


def _tool():
    spec = importlib.util.spec_from_file_location("datasets_table", ROOT / "tools" / "datasets_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_lists_every_recipes_current_parameters():
    listed = README.split("## Parameters and defaults", 1)[1].strip()
    assert listed == _tool().parameter_lines(), "stale: run python tools/datasets_table.py (see its docstring)"


def test_readme_table_has_a_row_per_recipe_with_its_description():
    tool = _tool()
    rows = {line.split(" | ")[0].lstrip("| ").strip(): line for line in README.splitlines()
            if line.startswith("| `")}
    expected = {f"`{name}`" + (f" `subset={subset}`" if subset else "")
                for name in registry() for subset in tool.SUBSETS.get(name, [None])}
    assert set(rows) == expected, "stale: run python tools/datasets_table.py (see its docstring)"
    for label, line in rows.items():
        name = label.split("`")[1]
        assert f"| {tool.cell(registry()[name].description)} |" in line, label
