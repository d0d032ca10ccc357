"""Commands for a method author: `new method` (a working plugin template and its test) and `check`
(the generic checks every algorithm plugin must pass, :mod:`mabench.testing`)."""

from __future__ import annotations

import sys

from mabench.cli.common import Command, print_json
from mabench.cli.process import GateFailed


def _new_arguments(s) -> None:
    s.add_argument("what", choices=["method"], help="what to create")
    s.add_argument("name", help="the method's name (a Python module name, e.g. pc1cut)")
    s.add_argument("--dir", default=".", help="folder to write algorithms/NAME.py and tests/test_NAME.py in "
                   "(use it as MABENCH_HOME)")


def cmd_new(args) -> None:
    from mabench import scaffold

    files = scaffold.new_method(args.name, args.dir)
    print_json({"written": [str(f) for f in files],
                "next": f"MABENCH_HOME={args.dir} mabench check {args.name}; docs/method-authors.md"})


NEW = Command("new", help="write a working plugin template and its test (mabench new method NAME)",
              arguments=_new_arguments, body=cmd_new)


def _check_arguments(s) -> None:
    s.add_argument("plugin", help="an algorithm name or a plugin file (.py)")
    s.add_argument("-k", help="k values, comma-separated (default 2,3,5)")
    s.add_argument("--memory", action="store_true", help="also check the memory estimate on a 10^5-record run")


def cmd_check(args) -> None:
    from mabench import testing
    from mabench.bench.runner import parse_ks

    ks = parse_ks(args.k) if args.k else testing.DEFAULT_KS
    problems = testing.check_plugin(args.plugin, ks=ks, memory=args.memory)
    if problems:
        sys.stderr.write("".join(f"mabench: check failed: {line}\n" for line in problems))
        raise GateFailed(len(problems), "check")
    print_json({"plugin": args.plugin, "passed": True, "k": list(ks), "memory": bool(args.memory)})


CHECK = Command("check", help="run the generic checks every algorithm plugin must pass (mabench.testing)",
                arguments=_check_arguments, body=cmd_check)
