"""The output layer: every file mabench writes goes through here.

Guarantees (docs/contract.md):

* **Atomic.** A regular file is written to a temporary file in the target's
  folder and renamed onto the target only when complete, so a crash, an error
  or Ctrl-C never leaves a partial output (and Snakemake never sees a
  half-written file as done).
* **All or nothing.** :func:`outputs` groups the files one command writes:
  they are all staged first and renamed together; if any of them fails, none
  is left behind (an existing file that was already replaced gets its previous
  content back, and folders created for the outputs are removed again).
* **Only regular files are replaced.** A target that exists and is not a
  regular file (``/dev/null``, ``/dev/stdout``, a named pipe) is written in
  place, never renamed over. A symbolic link is followed: the file it points to
  is replaced, the link stays.
* **Permissions.** A new file gets ``0o666`` minus the umask (like ``open``);
  a replaced file keeps its mode.
* **Errors are user errors.** Permission denied, a read-only file system, a
  missing or non-folder parent, a directory as target and a full disk become a
  :class:`~mabench.errors.UserError` naming the file (the CLI prints one line
  and exits with status 2).

Missing parent folders of a target are created (and removed again if the
command fails).
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from mabench.errors import UserError

__all__ = ["outputs", "Outputs", "atomic_path", "write_text", "write_bytes", "write_parquet", "os_error",
           "partition_csv", "identity", "check_clashes", "protect"]


def _umask() -> int:
    try:  # Linux: read it without changing it (os.umask is process-wide and not thread-safe)
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def os_error(exc: OSError, target, action: str = "write") -> UserError:
    """One line for an OS error on ``target``: what went wrong and what to do."""
    t = str(target)
    code = exc.errno
    if code in (errno.EACCES, errno.EPERM):
        why = "permission denied; choose a location you can write to"
    elif code == errno.EROFS:
        why = "read-only file system; choose a location you can write to"
    elif code in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        why = "no space left on the device (disk full or quota exceeded); free some space and re-run"
    elif code == errno.EISDIR:
        why = "it is a folder; give a file name inside it"
    elif code in (errno.ENOTDIR, errno.EEXIST):
        why = "a part of the path is a file, not a folder; choose another path"
    elif code == errno.ENOENT:
        why = "its folder does not exist or does not accept new files; choose another path"
    elif code == errno.ENAMETOOLONG:
        why = "the file name is too long; choose a shorter path"
    elif code == errno.ENXIO:
        why = "it is a special file that cannot be opened for writing; choose a regular file"
    else:
        why = f"{exc.strerror or exc.__class__.__name__}; choose another path"
    return UserError(f"cannot {action} {t!r}: {why}")


def identity(path) -> tuple:
    """What makes two names the same file: (device, inode) when it exists (hard links and symbolic
    links agree), else the resolved path (a file not yet there can only clash by name).

    The name is resolved first, as the output layer resolves it before writing: ``sub/../n.csv``
    with no folder ``sub`` cannot be opened, yet the written file lands on ``n.csv``."""
    text = os.fspath(path)
    try:
        real = os.path.realpath(text)
    except (OSError, ValueError):
        return ("path", text)
    for name in (text, real):
        try:
            st = os.stat(name)
        except (OSError, ValueError):
            continue
        if not stat.S_ISDIR(st.st_mode):
            return ("inode", st.st_dev, st.st_ino)
        break
    return ("path", real)


def check_clashes(outputs, inputs) -> None:
    """Refuse an output that names one of the command's inputs (it would be replaced), or a folder.

    ``outputs`` and ``inputs`` are iterables of (what, path) pairs, e.g. ("--out", "b.csv");
    None and empty paths are skipped. Raises a UserError naming both.
    """
    ins = [(what, p, identity(p)) for what, p in inputs if p]
    for owhat, out in outputs:
        if not out:
            continue
        if os.path.isdir(os.fspath(out)):
            raise UserError(f"{owhat} {os.fspath(out)!r}: it is a folder; give a file name inside it")
        oid = identity(out)
        for iwhat, inp, iid in ins:
            if oid == iid:
                raise UserError(f"{owhat} {os.fspath(out)!r} is the same file as {iwhat} {os.fspath(inp)!r}; "
                                "writing it would replace your input, choose another output file name")


@dataclass
class _Staged:
    target: Path  # as the user gave it (for messages)
    real: Path  # where the bytes go (symlinks resolved)
    tmp: Path
    special: bool  # write in place (device, pipe) instead of renaming
    backup: Path | None = None
    committed: bool = False


_LIVE: list["Outputs"] = []  # open transactions, for abort_all()


def abort_all() -> None:
    """Remove the temporary files of every open transaction (the CLI's interrupt watchdog calls this)."""
    for out in list(_LIVE):
        out.abort()


class Outputs:
    """The files one command writes: staged one by one, committed together (see :func:`outputs`)."""

    def __init__(self) -> None:
        _LIVE.append(self)
        self._staged: list[_Staged] = []
        self._made_dirs: list[Path] = []
        self._scratch: Path | None = None
        self._umask = _umask()
        self._inputs: list[tuple[str, str, tuple]] = []

    def protect(self, inputs) -> None:
        """Inputs no output of this transaction may replace, as (what, path) pairs (see check_clashes)."""
        self._inputs.extend((what, os.fspath(p), identity(p)) for what, p in inputs if p)

    # ------------------------------------------------------------------ staging
    def _mkdirs(self, folder: Path, target) -> None:
        missing = []
        p = folder
        while not p.exists() and not p.is_symlink() and p != p.parent:
            missing.append(p)
            p = p.parent
        if p.exists() and not p.is_dir():
            raise os_error(OSError(errno.ENOTDIR, "Not a directory"), target)
        for d in reversed(missing):
            try:
                d.mkdir()
            except FileExistsError:
                continue
            except OSError as exc:
                raise os_error(exc, target) from None
            self._made_dirs.append(d)

    @contextlib.contextmanager
    def path(self, target) -> Iterator[Path]:
        """Yield the path to write ``target``'s content to; OS errors while writing become UserErrors."""
        text = os.fspath(target)
        if text == "" or text.endswith(os.sep):
            raise UserError(f"output path {text!r} is not a file name; give a file name such as out.csv")
        target = Path(text)
        try:
            st = os.stat(target)  # follows symbolic links
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise os_error(exc, target) from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise os_error(OSError(errno.EISDIR, "Is a directory"), target)
        special = st is not None and not stat.S_ISREG(st.st_mode)
        # A regular file behind a symbolic link is replaced where it is; a special file is opened by its name.
        real = target if special else Path(os.path.realpath(target))
        if self._inputs:
            check_clashes([("output", text)], [(what, p) for what, p, _ in self._inputs])
        if any(s.real == real and not s.special for s in self._staged):
            raise UserError(f"{text!r} is given for two outputs of the same command; give each output its own file")
        if special:
            if self._scratch is None:
                try:
                    self._scratch = Path(tempfile.mkdtemp(prefix="mabench-out-"))
                except OSError as exc:
                    raise os_error(exc, tempfile.gettempdir()) from None
            folder = self._scratch
            mode = None
        else:
            folder = real.parent
            self._mkdirs(folder, target)
            mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~self._umask
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{real.name[:200]}.", suffix=".tmp", dir=folder)
        except OSError as exc:
            raise os_error(exc, target) from None
        staged = _Staged(target, real, Path(tmp), special)
        self._staged.append(staged)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
        finally:
            os.close(fd)
        try:
            yield staged.tmp
            with open(staged.tmp, "rb+") as fh:  # the data are on disk before the rename makes them visible
                os.fsync(fh.fileno())
        except OSError as exc:
            raise os_error(exc, target) from None

    def write_text(self, target, text: str) -> None:
        self.write_text_parts(target, [text])

    def write_text_parts(self, target, texts: Iterable[str]) -> None:
        """One text file from consecutive pieces (UTF-8), written as they come."""
        with self.path(target) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            for text in texts:
                fh.write(text)

    def write_bytes(self, target, data: bytes) -> None:
        with self.path(target) as tmp:
            tmp.write_bytes(data)

    def write_parquet(self, target, frame, metadata: dict[str, str] | None = None) -> None:
        """A DataFrame as Parquet, deterministically (no pandas index, only our metadata)."""
        import pyarrow as pa

        table = pa.Table.from_pandas(frame, preserve_index=False)
        self.write_arrow(target, table.schema, [table], metadata)

    def write_arrow(self, target, schema, tables: Iterable, metadata: dict[str, str] | None = None) -> None:
        """Arrow tables of one ``schema`` as one Parquet file, written as they come (each its own row
        groups of at most 2**20 rows), deterministically."""
        import pyarrow.parquet as pq

        # pandas' own metadata embeds library versions; keep only ours so equal data
        # gives byte-identical files across pandas releases.
        ours = {k.encode(): v.encode() for k, v in (metadata or {}).items()}
        with self.path(target) as tmp, pq.ParquetWriter(tmp, schema.with_metadata(ours), compression="zstd",
                                                        write_statistics=False) as writer:
            for table in tables:
                writer.write_table(table.replace_schema_metadata(ours))

    # ------------------------------------------------------------------ commit / abort
    def commit(self) -> None:
        """Make every staged file visible; on any failure, restore the state before the command."""
        current = None
        try:
            # In-place writes first: they cannot be undone, and none of the renames has happened yet.
            for s in self._staged:
                if s.special:
                    current = s
                    with open(s.tmp, "rb") as src, open(s.real, "wb") as dst:
                        shutil.copyfileobj(src, dst)
                    s.committed = True
            for s in self._staged:
                if not s.special:
                    current = s
                    if s.real.exists():
                        s.backup = s.tmp.with_suffix(".bak")
                        try:
                            os.link(s.real, s.backup)
                        except OSError:
                            s.backup = None
                    os.replace(s.tmp, s.real)
                    s.committed = True
        except OSError as exc:
            self.abort()
            raise os_error(exc, current.target if current else "output") from None
        except BaseException:
            self.abort()
            raise
        for s in self._staged:
            if s.backup is not None:
                with contextlib.suppress(OSError):
                    s.backup.unlink()
        self._cleanup_scratch()
        self._staged.clear()
        self._made_dirs.clear()

    def abort(self) -> None:
        """Remove every temporary file, undo the renames already done, remove folders made for the outputs."""
        for s in reversed(self._staged):
            with contextlib.suppress(OSError):
                if s.committed and not s.special:
                    if s.backup is not None:
                        os.replace(s.backup, s.real)
                        s.backup = None
                    else:
                        s.real.unlink()
            for leftover in (s.tmp, s.backup):
                if leftover is not None:
                    with contextlib.suppress(OSError):
                        leftover.unlink()
        for d in reversed(self._made_dirs):
            with contextlib.suppress(OSError):
                d.rmdir()  # only if still empty
        self._cleanup_scratch()
        self._staged.clear()
        self._made_dirs.clear()

    def _cleanup_scratch(self) -> None:
        with contextlib.suppress(ValueError):
            _LIVE.remove(self)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


_ACTIVE: contextvars.ContextVar[Outputs | None] = contextvars.ContextVar("mabench_outputs", default=None)


@contextlib.contextmanager
def outputs() -> Iterator[Outputs]:
    """Write several files as one: all of them appear when the block ends without error, or none does.

    Blocks nest: inside an active block (the CLI opens one around every command), a new block and
    every :func:`write_text` / :func:`atomic_path` join it, so a whole command is one transaction.

    >>> with outputs() as out:                       # doctest: +SKIP
    ...     out.write_text("p.csv", "group\\n0\\n")
    ...     out.write_text("r.json", "{}\\n")
    """
    active = _ACTIVE.get()
    if active is not None:
        yield active
        return
    out = Outputs()
    token = _ACTIVE.set(out)
    try:
        try:
            yield out
        except BaseException:
            out.abort()
            raise
        out.commit()
    finally:
        _ACTIVE.reset(token)


def protect(inputs) -> None:
    """Register inputs with the active transaction (no-op outside one), so that no output replaces them."""
    active = _ACTIVE.get()
    if active is not None:
        active.protect(inputs)


@contextlib.contextmanager
def atomic_path(target) -> Iterator[Path]:
    """One file: yield a temporary path to write to; it replaces ``target`` when the block succeeds."""
    with outputs() as out, out.path(target) as tmp:
        yield tmp


def write_now(target, text: str) -> None:
    """One file written at once, outside any command's transaction: a file another process reads while
    this one runs (the compile step's progress) or a cache entry. A temporary file beside it replaces
    it whole, so a reader sees the old text or the new, never half; the temporary file never stays."""
    target = Path(target)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    finally:
        if os.path.lexists(tmp):
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def write_text(target, text: str) -> None:
    with outputs() as out:
        out.write_text(target, text)


def write_bytes(target, data: bytes) -> None:
    with outputs() as out:
        out.write_bytes(target, data)


def write_parquet(target, frame, metadata: dict[str, str] | None = None) -> None:
    with outputs() as out:
        out.write_parquet(target, frame, metadata)


def partition_csv(labels) -> str:
    """A partition as the CSV every command reads and writes: header ``group``, one label per record.

    A per-variable partition ((n, d) labels, individual ranking) has one column per variable,
    headers ``group_1,...,group_d``."""
    if getattr(labels, "ndim", 1) == 2:
        head = ",".join(f"group_{j + 1}" for j in range(labels.shape[1]))
        return head + "\n" + "".join(",".join(str(g) for g in row) + "\n" for row in labels.tolist())
    values = labels.tolist()
    if labels.dtype.kind in "iu" and labels.size:
        low, high = int(labels.min()), int(labels.max())
        if 0 <= low and high <= labels.size:
            # labels 0..g-1, as a checked partition has: each label's line is made once (1.8x faster at 400,000)
            lines = [f"{g}\n" for g in range(high + 1)]
            return "group\n" + "".join(map(lines.__getitem__, values))
    return "group\n" + "".join(f"{g}\n" for g in values)
