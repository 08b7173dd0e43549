"""CPU time of the processes a fit starts (joblib's loky workers for ``sklearn_lda`` at n_jobs > 1), for ``fit_cpu_s``.

``time.process_time`` counts this process's threads (numba's, BLAS's) but no other process, and RUSAGE_CHILDREN counts
a child only once it has exited and been waited for; loky's workers persist across calls, so a fit's E steps done in
them were missing from fit_cpu_s. ``descendants_cpu_s`` reads every live descendant's CPU clock (Linux's per-process
clock, nanoseconds, dead threads included) plus RUSAGE_CHILDREN for those already waited for, so the difference of two
readings is the CPU the descendants spent between them: taken around ``partial_fit`` only, like the wall clock, it
leaves out what the workers spend on evaluation (sklearn's ``transform`` runs in them too).
"""
from __future__ import annotations

import os
import resource
import time

import psutil

ATTEMPTS = 5  # a reading races a worker being waited for mid-read; it is retried, and NaN if it never settles


def _children(pid: int) -> list[int]:
    """The direct children of ``pid`` (zombies included: they hold their CPU until waited for)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:  # not Linux, or pid gone (the caller retries)
        return [child.pid for child in psutil.Process(pid).children()]
    kids = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids += [int(k) for k in f.read().split()]
        except FileNotFoundError:  # a thread that ended while listed
            continue
    return kids


def _own_and_waited_cpu_s(pid: int) -> float:
    """CPU seconds of process ``pid``'s threads (live and ended), plus those of its children it has waited for."""
    times = psutil.Process(pid).cpu_times()
    try:
        own = time.clock_gettime(((~pid) << 3) | 2)  # Linux's CPUCLOCK_SCHED of the whole process: ns, not 10 ms ticks
    except OSError:  # gone mid-read (the caller retries), or no per-process clocks on this system
        if os.path.exists(f"/proc/{pid}"):
            own = times.user + times.system
        else:
            raise psutil.NoSuchProcess(pid) from None
    return own + times.children_user + times.children_system


def descendants_cpu_s() -> float:
    """CPU seconds spent so far by every process this one started, theirs, and so on, whether running or ended.

    Live descendants by their clocks; ended ones in RUSAGE_CHILDREN (ours) or their parent's waited-for times. A
    descendant ended but never waited for by a live ancestor would be lost: that needs a worker whose parent exits
    first, which loky's do not. NaN (never a low number) if the reading does not settle in ATTEMPTS tries."""
    for _ in range(ATTEMPTS):
        waited = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            total, stack = 0.0, _children(os.getpid())
            while stack:
                pid = stack.pop()
                total += _own_and_waited_cpu_s(pid)
                stack += _children(pid)
        except (psutil.NoSuchProcess, ProcessLookupError):  # ended mid-read: its CPU is moving to its parent's count
            continue
        if resource.getrusage(resource.RUSAGE_CHILDREN) == waited:  # none of ours was waited for mid-read
            return total + waited.ru_utime + waited.ru_stime
    return float("nan")
