"""Writing a report to disk, all or nothing: the document and (Markdown) its figure files.

Every file is written to a temporary sibling in the target folder and renamed into place only
when all of them are complete, so an error leaves nothing behind. Before anything is written,
every target is checked: one that exists and is not a regular file (a folder, a FIFO, a device,
a symbolic link) is refused, never replaced, and the error names that path. If a rename still
fails, the files already renamed are put back as they were.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from judgestats._paths import check_path

__all__ = ["FORMATS", "check_format", "check_targets", "save_document"]

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


def _kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def check_targets(paths: list[Path]) -> None:
    """Refuse targets that exist and are not regular files, or whose names are too long.

    Raises
    ------
    ValueError
        Naming the first such path and what it is: it is never replaced. A file name longer
        than a file system holds (a figure's ``<stem>_<name>.png`` too) names ``path``.
    """
    for target in paths:
        check_path(target)  # a name over 255 bytes: open() would raise a bare OSError
        try:
            mode = os.lstat(target).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(mode):
            raise ValueError(
                f"cannot write {os.fspath(target)}: it exists and is {_kind_of(mode)}, not a "
                "regular file; it is never replaced (remove it or choose another `path`). "
                "Nothing was written."
            )


def save_document(
    document: Any, path: str | os.PathLike[str], format: str | None, embed_figures: bool | None
) -> list[Path]:
    """Write a report (:meth:`Report.save`): the document, then its figures, all or nothing.

    ``document`` has ``to_html()``, ``to_markdown(figure_stem=None)`` and ``figures`` (name ->
    PNG bytes); Markdown links each figure as ``<stem>_<name>.png`` unless embedding them.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"`path` must be a str or os.PathLike, got {type(path).__name__}.")
    target = Path(check_path(path))  # a NUL, a name too long: a ValueError naming `path`
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
    check_targets(list(files))
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
                dir=target.resolve().parent, prefix=f".{target.name[:32]}.", suffix=".tmp"
            )
            written[target] = temporary
            with os.fdopen(handle, "wb") as stream:
                stream.write(content)
            os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; a report is shared
    except BaseException as error:
        for temporary in written.values():
            Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):  # name the file being written, not its temporary twin
            raise OSError(error.errno, error.strerror, os.fspath(target)) from None
        raise
    _rename_all(written)


def _rename_all(written: dict[Path, str]) -> None:
    """Rename every temporary file into place; on a failure, undo the renames already done.

    A target that existed is first moved aside to a temporary name, so it can be put back.
    """
    done: list[tuple[Path, str | None]] = []  # (target, where its old version waits)
    try:
        for target, temporary in written.items():
            aside = None
            if target.exists():
                aside = temporary + ".old"
                os.replace(target, aside)
            done.append((target, aside))
            os.replace(temporary, target)
    except OSError as error:
        blocked = os.fspath(target)
        for renamed, aside in reversed(done):
            if aside is None:
                renamed.unlink(missing_ok=True)
            else:
                os.replace(aside, renamed)
        for temporary in written.values():
            Path(temporary).unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror, blocked) from None
    for _, aside in done:
        if aside is not None:
            Path(aside).unlink(missing_ok=True)
