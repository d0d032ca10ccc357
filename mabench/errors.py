"""User-facing errors.

Anything the user can fix (a bad path, a bad parameter, bad data) raises
:class:`UserError`; the CLI prints its message as one line and exits with
status 2. Everything else is a bug and keeps its traceback.
"""

EXIT_USAGE = 2


class UserError(ValueError):
    """An input problem, described in one line: what is wrong and how to fix it. A ValueError, so
    that code written for scikit-learn and NumPy (``except ValueError``) catches bad input as bad input."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


class PluginContractError(UserError):
    """A plugin broke its contract (labels that are not whole numbers, info that is not JSON, writing into
    its input, ending the process): bad input to the engine, one line naming the plugin (exit 2)."""
