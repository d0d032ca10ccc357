"""The API's wording of the engine's messages: a UserError names the CLI's options (``--param x=``,
``-k 3``); a caller of the Python API reads the keywords it sets instead (``x=``, ``k=3``)."""

from __future__ import annotations

import functools
import re

from mabench.errors import UserError

# The engine's messages name the CLI's options; a caller of this API sets keywords instead.
CLI_WORDS = [
    (re.compile(r"--param (\w+)="), r"\1="),
    (re.compile(r"--option (\w+)="), r"\1="),
    (re.compile(r"--metrics ([\w,]+)"), r"metrics='\1'"),
    (re.compile(r"--seed\b"), "seed="),
    (re.compile(r"(?<![\w-])-k (\d+)"), r"k=\1"),
]


# Result.metrics(options={...}) takes metric options as one dict, not as keywords.
OPTION_WORDS = [
    (re.compile(r"--option (\w+)=(\S+?)([;,)]?(\s|$))"), lambda m: f'options={{"{m.group(1)}": {m.group(2)}}}{m.group(3)}'),
    *[(pattern, repl) for pattern, repl in CLI_WORDS if "option" not in pattern.pattern],
]


def in_api_terms(fn, words=CLI_WORDS):
    """Run ``fn``; a UserError's message is re-worded from the CLI's options to this API's keywords."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            text = str(exc)
            for pattern, repl in words:
                text = pattern.sub(repl, text)
            if text == str(exc):
                raise
            raise UserError(text) from None
    return wrapper
