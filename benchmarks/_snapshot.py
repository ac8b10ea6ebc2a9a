"""Read a public repository's files from a checkout or a (bare) git directory at one revision.

The extraction scripts (extract_judgebench.py, extract_llmbar.py) take either: a checkout, known
by its ``marker`` folder, or the git directory that the workplace's ``fetch`` brings.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


class Snapshot:
    """Files of ``path`` at revision ``rev`` (a checkout if ``path / marker`` is a folder)."""

    def __init__(self, path: Path, rev: str, marker: str) -> None:
        self.path = path
        self.checkout = (path / marker).is_dir()
        self.rev = rev
        self.commit = "" if self.checkout else self._git("rev-parse", rev).strip()

    def _git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", f"--git-dir={self.path}", *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def names(self, folder: str) -> list[str]:
        """Every file below ``folder``, as paths relative to the repository root, sorted."""
        if self.checkout:
            return sorted(
                str(p.relative_to(self.path)).replace("\\", "/")
                for p in (self.path / folder).rglob("*")
                if p.is_file()
            )
        listed = self._git("ls-tree", "-r", "--name-only", self.rev, folder + "/")
        return sorted(listed.split())

    def read(self, name: str) -> str | None:
        """The file's text; None where it is absent (a snapshot may list a blob it lacks)."""
        if self.checkout:
            file = self.path / name
            return file.read_text(encoding="utf-8") if file.is_file() else None
        try:
            return self._git("show", f"{self.rev}:{name}")
        except subprocess.CalledProcessError:
            return None

    def require(self, name: str) -> str:
        """The file's text, or exit naming the file."""
        text = self.read(name)
        if text is None:
            raise SystemExit(f"{name} is not in the snapshot")
        return text
