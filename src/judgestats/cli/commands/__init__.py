"""The commands of ``judgestats``, one module each: ``add_command(commands)`` and ``run(args)``.

:data:`COMMANDS` lists them in the order ``judgestats --help`` shows them.
"""

from judgestats.cli.commands import (
    compare,
    crosscheck,
    demo,
    estimate,
    figures,
    labelling,
    plan,
    posterior,
    report,
)

__all__ = ["COMMANDS"]

#: Each command's name and its module (``add_command(commands)``, ``run(args) -> int``).
COMMANDS = {
    "estimate": estimate,
    "posterior": posterior,
    "crosscheck": crosscheck,
    "demo": demo,
    "plan": plan,
    "figures": figures,
    "compare": compare,
    "report": report,
    "next": labelling,
}
