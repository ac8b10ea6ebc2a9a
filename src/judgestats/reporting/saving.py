"""Writing a report to disk, all or nothing: the document and (Markdown) its figure files.

Every file is written to a temporary sibling in the target folder and renamed into place only
when all of them are complete, so an error leaves nothing behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["FORMATS", "check_format", "save_document"]

#: Output formats of :meth:`Report.save`, and the file extensions that select them.
FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}


def check_format(format: str | None, path: Path) -> str:
    """The format to write: ``format`` if given and known, else the one of the extension."""
    if format is not None:
        if format not in ("html", "markdown"):
            raise ValueError(f"`format` ({format!r}) must be 'html' or 'markdown'.")
        return format
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise ValueError(
            f"`path` ({os.fspath(path)!r}): cannot tell the format from the "
            f"extension {path.suffix!r}; use one of {', '.join(FORMATS)} or give "
            "`format` ('html' or 'markdown')."
        )
    return kind


def save_document(
    document: Any, path: str | os.PathLike[str], format: str | None, embed_figures: bool | None
) -> list[Path]:
    """Write a report (:meth:`Report.save`): the document, then its figures, all or nothing.

    ``document`` has ``to_html()``, ``to_markdown(figure_stem=None)`` and ``figures`` (name ->
    PNG bytes); Markdown links each figure as ``<stem>_<name>.png`` unless embedding them.
    """
    target = Path(path)
    kind = check_format(format, target)
    if not target.resolve().parent.is_dir():
        raise ValueError(f"`path` ({os.fspath(path)!r}): its folder does not exist.")
    files: dict[Path, bytes] = {}
    if kind == "html":
        files[target] = document.to_html().encode("utf-8")
    elif embed_figures:
        files[target] = document.to_markdown().encode("utf-8")
    else:
        files[target] = document.to_markdown(figure_stem=target.stem).encode("utf-8")
        for name, png in document.figures.items():
            files[target.with_name(f"{target.stem}_{name}.png")] = png
    _write_all(files)
    return list(files)


def _umask() -> int:
    """The process's file-creation mask (read by setting it and restoring it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_all(files: dict[Path, bytes]) -> None:
    """Write every file to a temporary sibling, then rename them all into place."""
    written: dict[Path, str] = {}
    try:
        for target, content in files.items():
            handle, temporary = tempfile.mkstemp(
                dir=target.resolve().parent, prefix=f".{target.name}.", suffix=".tmp"
            )
            written[target] = temporary
            with os.fdopen(handle, "wb") as stream:
                stream.write(content)
            os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; a report is shared
    except BaseException:
        for temporary in written.values():
            Path(temporary).unlink(missing_ok=True)
        raise
    for target, temporary in written.items():
        os.replace(temporary, target)
