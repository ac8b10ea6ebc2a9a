"""Every notebook in notebooks/ runs top to bottom without error, with its parameters shrunk.

A notebook may tag one code cell ``parameters``; a cell inserted right after it overrides the names
it assigns that appear in :data:`SMALL` (fewer draws, fewer chains), so the whole module stays
fast. The kernel is the ``python3`` kernel of the running interpreter (jupyter_client replaces a
bare ``python`` in the kernel command by ``sys.executable``).
"""

import ast
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))

#: Small values for the parameter cell; only names the notebook itself assigns are overridden.
SMALL = {"DRAWS": 200, "TUNE": 200, "CHAINS": 2, "REPS": 200, "BAYES_REPS": 4}

#: Text some output of a notebook must contain (beyond running without error).
EXPECTED_OUTPUT = {
    "bayes_vs_lang_reiczigel.ipynb": [
        "judgestats cross-check",
        "Rogan-Gladen + Lang-Reiczigel",
        "posterior median + equal-tailed",
        "intervals_disagree",
    ],
}


def _assigned_names(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _inject_parameters(nb) -> None:
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            overrides = {k: v for k, v in SMALL.items() if k in _assigned_names(cell.source)}
            if overrides:
                source = "\n".join(f"{k} = {v!r}" for k, v in overrides.items())
                new = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
                nb.cells.insert(index + 1, new)
            return


def _text_outputs(nb) -> str:
    parts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                parts.append(output.get("text", ""))
            elif "data" in output:
                parts.append(output["data"].get("text/plain", ""))
    return "\n".join(parts)


def test_notebooks_exist():
    assert NOTEBOOKS, f"no notebooks found in {NOTEBOOKS_DIR}"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path):
    nb = nbformat.read(path, as_version=4)
    _inject_parameters(nb)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS_DIR)}}
    )
    client.execute()  # a failing cell raises CellExecutionError, which fails the test
    text = _text_outputs(nb)
    for expected in EXPECTED_OUTPUT.get(path.name, []):
        assert expected in text, f"{path.name}: no output contains {expected!r}"
