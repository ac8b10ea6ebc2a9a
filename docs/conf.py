"""Sphinx configuration of the judgestats documentation.

Build: ``python -m sphinx -W -q -b html docs docs/_build/html`` (warnings are errors; no network:
no intersphinx). The API pages are generated from each public module's ``__all__`` at build time
(``docs/api/*.rst``, ignored by git), and the notebooks are copied from ``notebooks/`` into
``docs/gallery/notebooks/`` and rendered without being executed (the test suite executes them).
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT / "src"))

import judgestats  # noqa: E402

project = "judgestats"
author = "judgestats developers"
copyright = "judgestats developers"  # noqa: A001
release = version = judgestats.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# ---- MyST and the gallery ---------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True
nb_execution_mode = "off"  # tests/test_notebooks.py executes them
nb_merge_streams = True
suppress_warnings = ["myst.header"]  # the notebooks start at H1 and use H3 for their steps

# ---- API pages --------------------------------------------------------------------------------
#: The public modules: one API page each, listing every name of its ``__all__``.
PUBLIC_MODULES = (
    "judgestats",
    "judgestats.bayes",
    "judgestats.comparison",
    "judgestats.datasets",
    "judgestats.designs",
    "judgestats.grouped",
    "judgestats.io",
    "judgestats.kclass",
    "judgestats.planning",
    "judgestats.recommendation",
    "judgestats.reporting",
    "judgestats.sequential",
    "judgestats.simulate",
    "judgestats.stratified",
    "judgestats.cli",
    "judgestats.paper",
    "judgestats.results",
    "judgestats.plots",
)

autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
# Not nitpicky yet: docstrings still cross-reference private modules and bare attribute names
# (about 1,000 targets); -W already fails on every other warning.
nitpicky = False


def _api_page(module_name: str) -> str:
    module = importlib.import_module(module_name)
    names = sorted(module.__all__, key=lambda name: (not name[0].isupper() or name.isupper(), name))
    title = f"``{module_name}``"
    lines = [
        title,
        "=" * len(title),
        "",
        f".. automodule:: {module_name}",
        "   :no-members:",
        "",
        f".. currentmodule:: {module_name}",
        "",
        ".. autosummary::",
        "   :toctree: generated",
        "",
        *(f"   {name}" for name in names),
        "",
    ]
    return "\n".join(lines)


def _noindex_names() -> list[str]:
    """Names re-exported by ``judgestats`` from a subpackage: documented there, indexed once."""
    top = importlib.import_module("judgestats")
    elsewhere = {
        name
        for module_name in PUBLIC_MODULES[1:]
        for name in getattr(importlib.import_module(module_name), "__all__", ())
    }
    return [f"judgestats.{name}" for name in top.__all__ if name in elsewhere]


def _write_if_changed(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _generate() -> None:
    api = DOCS / "api"
    for module_name in PUBLIC_MODULES:
        _write_if_changed(api / f"{module_name}.rst", _api_page(module_name))
    gallery = DOCS / "gallery" / "notebooks"
    gallery.mkdir(exist_ok=True)
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        target = gallery / notebook.name
        if not target.is_file() or target.read_bytes() != notebook.read_bytes():
            shutil.copyfile(notebook, target)


_generate()
autosummary_context = {"noindex": _noindex_names()}

# ---- HTML ----------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"judgestats {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
# A first visit has no stored colour mode: without a default the theme's script logs
# "Got invalid theme mode" as a console error (tests/test_pages_in_browser.py looks for those).
html_context = {"default_mode": "auto"}
html_static_path: list[str] = []
html_show_sourcelink = False
