"""The process around a command: exit statuses, Ctrl-C and SIGTERM, the CPU log and the exit
without the interpreter's teardown. The one module of mabench that handles signals."""

from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Callable

from mabench.errors import EXIT_USAGE, UserError

STARTED = time.perf_counter()  # the command's start, for `batch --benchmark-out`


EXIT_GATE = 1  # `mabench compare`: a regression gate failed (2 stays "bad input")


class GateFailed(Exception):
    """A regression gate of `mabench compare` or a check of `mabench check` failed (exit status 1, not a
    usage error). ``GateFailed(n, "check")``: the failed checks were already said, one line each."""


INTERRUPTED = "mabench: interrupted; nothing was written\n"
GRACE_SECONDS = 1.0


_SIGNALLED: list = []  # set once a SIGINT or SIGTERM has arrived
_ARMED: list = []  # non-empty while _status's handlers can take a KeyboardInterrupt
_UNWOUND: list = []  # the interrupt, kept: see _keep


def _interrupt(signum, frame):  # SIGINT and SIGTERM (e.g. from a workflow manager) unwind like Ctrl-C
    _SIGNALLED.append(signum)
    gc.disable()  # see _keep; no import here: a handler can run inside another import's locking
    if _ARMED:  # unarmed (handlers still being installed, or the command committed): only recorded
        raise KeyboardInterrupt


def _arm() -> None:
    """From here a signal raises KeyboardInterrupt; one that arrived while the handlers were being
    installed raises it now."""
    _ARMED.append(True)
    if _SIGNALLED:
        raise KeyboardInterrupt


def _keep(exc: BaseException) -> None:
    """After a signal, free nothing the interrupted code held: a compile or cache load that Numba and
    llvmlite did not finish leaves LLVM objects whose release can fail or crash the process after the
    one line. The exception keeps its traceback (the frames and their objects) and the cyclic collector
    stays off (``_interrupt``) until :func:`run` ends the process with ``os._exit``."""
    if _SIGNALLED:
        _UNWOUND.append(exc)


def _quiet_interrupt(previous):
    def hook(unraisable):
        # once a signal has arrived, a library object whose __del__ fails later (e.g. llvmlite's, freed
        # after a compile was cut short) must not print a traceback after the one line either
        if not isinstance(unraisable.exc_value, KeyboardInterrupt) and not _SIGNALLED:
            previous(unraisable)
    return hook


class _Interrupts:
    """Ctrl-C and SIGTERM end the command with status 130, no traceback and no output file.

    In Python code the signal raises KeyboardInterrupt and the output layer removes its temporary
    files while the stack unwinds. A Numba kernel does not return to Python until it is done, so a
    watchdog thread, woken by the signal itself (``signal.set_wakeup_fd``), gives the main thread
    GRACE_SECONDS to unwind and otherwise removes the temporary files and exits with status 130.

    The handlers raise only while armed, from the start of ``_status``'s try until its files are
    committed; a signal before that is recorded and raised by ``_arm``, one after it only recorded.
    """

    def __enter__(self):
        import signal
        import socket
        import threading

        _SIGNALLED.clear()
        _ARMED.clear()
        self.active = threading.current_thread() is threading.main_thread()
        if not self.active:
            return self
        # first, and unarmed until _status's try (_arm): a signal from here on is recorded, never raised
        # where nothing would catch it (e.g. in Thread.start below)
        self.previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
        # the KeyboardInterrupt of a signal that lands in a C callback cannot propagate there; Python
        # would print it with a traceback ("Exception ignored ..."): the one line comes from _status
        self.previous_hook = sys.unraisablehook
        sys.unraisablehook = _quiet_interrupt(self.previous_hook)
        self.done = threading.Event()
        self.reader, self.writer = socket.socketpair()
        self.writer.setblocking(False)
        self.previous_fd = signal.set_wakeup_fd(self.writer.fileno(), warn_on_full_buffer=False)
        threading.Thread(target=self._watch, name="mabench-interrupts", daemon=True).start()
        return self

    def _watch(self):
        import os

        from mabench import io

        try:
            if not self.reader.recv(1):
                return
        except OSError:
            return
        if self.done.wait(GRACE_SECONDS) or not _ARMED:  # unwound, or committed: the outcome stands
            return
        io.abort_all()
        os.write(2, INTERRUPTED.encode())
        os._exit(130)

    def __exit__(self, *exc):
        if not self.active:
            return False
        import signal

        self.done.set()
        if not _SIGNALLED:  # after a signal the quiet hook stays until the process ends
            sys.unraisablehook = self.previous_hook
        signal.set_wakeup_fd(self.previous_fd)
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        self.writer.close()  # ends the watchdog (recv returns b"")
        self.reader.close()
        return False


def disarm() -> None:
    """The command's files are committed: a signal from now on is only recorded."""
    _ARMED.clear()


def main(execute: Callable[[], None], argv) -> int:
    """Run ``execute`` (a command) under the signal handlers; its exit status."""
    with _Interrupts():
        status = _status(execute)
    log_cpu(argv)
    return status


def cpu_seconds() -> float:
    """CPU seconds of this process and of the worker processes it has waited for (`compile --jobs`)."""
    import resource

    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def log_cpu(argv) -> None:
    """With ``MABENCH_CPU_LOG`` set (``python -m mabench.bench.timing`` sets it for a workflow run), add
    this process's command and CPU seconds to that file, so that the run's CPU time splits by stage."""
    import os

    path = os.environ.get("MABENCH_CPU_LOG")
    if not path:
        return
    words = sys.argv[1:] if argv is None else list(argv)
    line = json.dumps({"command": words[0] if words else "", "cpu_seconds": round(cpu_seconds(), 3)})
    try:  # one short line with O_APPEND: concurrent jobs do not interleave
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
    except OSError:  # a measurement aid: never the reason a command fails
        pass


def _status(execute: Callable[[], None]) -> int:
    """0 when ``execute`` returns; 2 with one line for a user error, 1 for a failed gate, 130 when
    interrupted, 141 for a closed pipe."""
    try:
        _arm()
        execute()
    except UserError as exc:
        sys.stderr.write(f"mabench: error: {exc}\n")
        return EXIT_USAGE
    except GateFailed as exc:
        if len(exc.args) == 1:
            sys.stderr.write(f"mabench: regression check failed: {exc.args[0]} gate(s); see the report above\n")
        return EXIT_GATE
    except KeyboardInterrupt as exc:
        # Outputs are staged in temporary files that the output layer removed while unwinding.
        _keep(exc)
        sys.stderr.write(INTERRUPTED)
        return 130
    except BrokenPipeError:  # e.g. `mabench list algorithms | head -1`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except MemoryError:
        sys.stderr.write("mabench: error: not enough memory for this input; try a smaller data set\n")
        return EXIT_USAGE
    except OSError as exc:  # an unforeseen file-system error: still one line, naming the file
        from mabench.io import os_error

        sys.stderr.write(f"mabench: error: {os_error(exc, exc.filename or '?', 'access')}\n")
        return EXIT_USAGE
    except Exception as exc:
        # A signal that lands inside a library callback (e.g. LLVM's while Numba compiles) is swallowed
        # there and resurfaces as that library's own error: after a signal, any failure is the interrupt.
        if not _SIGNALLED:
            raise
        _keep(exc)
        sys.stderr.write(INTERRUPTED)
        return 130
    finally:
        _ARMED.clear()
    return 0


def run(main: Callable[[], int]) -> None:
    """The ``mabench`` program (console script and ``python -m mabench.cli``): ``main()``, then exit
    without the interpreter's teardown (``os._exit`` once the standard streams are flushed).

    Every file a command writes is closed (and synced) before ``main`` returns, so the teardown
    only frees memory, and freeing Numba's compiled code and the loaded data costs about 0.3 s of CPU
    a process (measured on ``mabench run`` with four metrics; a workflow starts about 25 of them).
    It also keeps an interrupted command's status 130: a KeyboardInterrupt that passed through C code
    calling back into Python (``PyRun_*``) marks the interpreter, and a normal exit would then turn
    the handled interrupt into death by SIGINT (status −2 to the caller) after the message."""
    import os

    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
