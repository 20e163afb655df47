"""Per-run work on every core: a process pool with results in input order and one progress callback.

`imap_runs(func, items, *extra)` yields `func(item, *extra)` for each item in input order, computed
in worker processes when that pays (several items, enough bytes, more than one core), else in this
process; results are handed over as soon as they are next in order, so the caller can consume them
one by one. An exception raised by `func` for one item is raised at that item, as in the serial
loop, so callers handle errors the same either way. Workers are forked from a forkserver that has imported
curriwatch's readers once, so each worker starts warm and never inherits the caller's threads.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

MIN_ITEMS = 4
MIN_BYTES = 16 << 20  # below this much input, starting workers costs more than it saves
_PRELOAD = ["curriwatch.ingest", "curriwatch.readers.tensorboard", "curriwatch.readers.wandb_offline",
            "curriwatch.scan", "curriwatch.analyze",
            "curriwatch.readers.warm"]  # the last one loads the compiled readers once, before forking

Progress = Callable[[int, int, str], None]  # (done, total, name of the item just started or done)


def workers(requested: int | None = None) -> int:
    """Worker processes to use: `requested`, else CURRIWATCH_WORKERS, else the usable cores."""
    if requested is None:
        env = os.environ.get("CURRIWATCH_WORKERS", "")
        requested = int(env) if env.isdigit() else 0
    if requested > 0:
        return requested
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_EXECUTOR: list = []  # set by `use_executor`: a distributed engine's executor for every sweep


@contextlib.contextmanager
def use_executor(executor):
    """Run the per-run work of `curriwatch.load` (and anything using `imap_runs`) on `executor`:
    any object with `submit(fn, *args)` returning `concurrent.futures` futures, e.g. Dask's
    `Client.get_executor()` or Ray's `ray.util.concurrent.futures` executor."""
    _EXECUTOR.append(executor)
    try:
        yield executor
    finally:
        _EXECUTOR.pop()


def imap_runs(func: Callable, items: Sequence, *extra, names: Sequence[str] | None = None,
              sizes: Sequence[int] | None = None, progress: Progress | None = None,
              max_workers: int | None = None) -> Iterator:
    """`func(item, *extra)` for each item, in that order, in parallel when it pays."""
    names = list(names) if names is not None else [str(i) for i in range(len(items))]
    n = workers(max_workers)
    big_enough = sizes is None or sum(sizes) >= MIN_BYTES
    if _EXECUTOR and items:
        yield from _pooled(func, items, extra, names, progress, _EXECUTOR[-1], 4)
    elif n > 1 and len(items) >= MIN_ITEMS and big_enough and _picklable(func, extra) and _main_importable():
        n = min(n, len(items))
        handed = 0
        try:
            with ProcessPoolExecutor(max_workers=n, mp_context=_context()) as pool:
                for value in _pooled(func, items, extra, names, progress, pool, n):
                    yield value
                    handed += 1
        except BrokenProcessPool:
            # workers import the caller's script again: one that calls curriwatch at its top level, with no
            # `if __name__ == "__main__":`, makes them start a pool while starting, and they die. The rest here
            print("curriwatch: worker processes could not start (does the calling script lack "
                  "`if __name__ == \"__main__\":`?); the rest runs in this process", file=sys.stderr)
            yield from _serial(func, items[handed:], extra, names[handed:], progress)
    else:
        yield from _serial(func, items, extra, names, progress)


def map_runs(func: Callable, items: Sequence, *extra, **options) -> list:
    """`[func(item, *extra) for item in items]`, computed as `imap_runs` does."""
    return list(imap_runs(func, items, *extra, **options))


def _serial(func, items, extra, names, progress) -> Iterator:
    for done, item in enumerate(items):
        if progress:
            progress(done, len(items), names[done])
        yield func(item, *extra)
    if progress:
        progress(len(items), len(items), "")


def _picklable(func, extra) -> bool:
    try:
        pickle.dumps((func, extra))
        return True
    except Exception:  # noqa: BLE001 - anything unpicklable (locks, lambdas, C objects) runs serially
        return False


def _main_importable() -> bool:
    """Whether worker processes can start: they import the caller's main script again from its path,
    which a script read from standard input (`python - < script.py`, `__file__` '<stdin>') does not
    have. Then the work runs in this process."""
    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None) is not None:
        return True  # `python -m module`: imported by name
    path = getattr(main, "__file__", None)
    return path is None or os.path.exists(path)


def _call(func, chunk, extra):
    """Worker side: results of one chunk, an exception kept as the item's result."""
    out = []
    for item in chunk:
        try:
            out.append((True, func(item, *extra)))
        except Exception as err:  # noqa: BLE001 - re-raised in the caller at this item
            out.append((False, err))
    return out


def _context():
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


def _pooled(func, items, extra, names, progress, pool, n) -> Iterator:
    total = len(items)
    # small chunks keep every core busy to the end; a few items each amortise the round trips
    size = max(1, min(16, total // (n * 8)))
    chunks = [range(lo, min(lo + size, total)) for lo in range(0, total, size)]
    ready: dict[int, tuple[bool, object]] = {}
    done = handed = 0
    if progress:
        progress(0, total, names[0])
    pending = {pool.submit(_call, func, [items[i] for i in chunk], extra): chunk for chunk in chunks}
    try:
        while handed < total:
            while handed in ready:  # hand over what is next in order, as soon as it is
                ok, value = ready.pop(handed)
                handed += 1
                if not ok:
                    raise value
                yield value
            if handed == total:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                chunk = pending.pop(fut)
                ready.update(zip(chunk, fut.result()))
                done += len(chunk)
                if progress:
                    progress(done, total, names[chunk[-1]])
    finally:
        for fut in pending:
            fut.cancel()
