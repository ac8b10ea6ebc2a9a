"""File paths given as arguments: the one check of a path before a file is read or written.

A path that no file system could hold is refused with an error naming the argument (the error
policy of :mod:`judgestats._validate`) before anything is opened: ``open`` and ``os.fspath``
would raise a bare ``embedded null byte`` or ``OSError: [Errno 36] File name too long`` that
names no argument, and a writer might have written part of its files by then.

Ground floor: the standard library only.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["NAME_MAX", "check_path"]

#: The longest file (or folder) name the common file systems hold: 255 bytes on Linux (ext4,
#: XFS, Btrfs), 255 characters on macOS (APFS) and Windows (NTFS).
NAME_MAX = 255


def _name_size(name: str) -> int:
    """The length of one file name as its file system counts it: bytes on Linux, else characters."""
    return len(os.fsencode(name)) if sys.platform.startswith("linux") else len(name)


def check_path(value: Any, name: str = "path") -> str:
    """A path as a ``str``, checked that a file system could hold it.

    Parameters
    ----------
    value : str or os.PathLike
        The path given.
    name : str, default "path"
        The argument's name, for the error messages.

    Returns
    -------
    str
        The path as given (``os.fspath`` of a path-like).

    Raises
    ------
    TypeError
        If ``value`` is not a ``str`` or an ``os.PathLike`` of one.
    ValueError
        If it holds a NUL character, or a file or folder name in it is longer than
        :data:`NAME_MAX`; the message names ``name``.
    """
    value = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(value, str):
        raise TypeError(
            f"`{name}` must be a file path (a str or an os.PathLike), got {type(value).__name__}."
        )
    if "\0" in value:
        raise ValueError(f"`{name}` ({value!r}) holds a NUL character; no file name can.")
    for part in value.replace(os.altsep or os.sep, os.sep).split(os.sep):
        if _name_size(part) > NAME_MAX:
            unit = "bytes" if sys.platform.startswith("linux") else "characters"
            raise ValueError(
                f"`{name}` ({value!r}) holds a file or folder name {_name_size(part)} {unit} "
                f"long ({part[:20]!r}...); file systems allow at most {NAME_MAX}: use a "
                "shorter name."
            )
    return value
