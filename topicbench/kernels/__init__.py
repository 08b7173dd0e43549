"""Shared numba kernels, one module per concern:

- ``special``: digamma and Dirichlet expectations E[log x] (Hoffman et al. 2010, eq. 6), and the vectorised
  block exp(E[log theta]) the E-step multiplies with;
- ``dense``: the compile flags, dot products and sums, a parallel transpose, online LDA's natural-gradient step,
  a probability's ceiling of 1 up to rounding (``rounded_to_one``);
- ``sparse``: CSR helpers (nonzeros grouped by word, p(w | d) at the nonzeros);
- ``lda_estep``: the fast LDA E-step (Alg. 2 E step), and ``lda_reference`` beside it, the plain numpy
  transcription of Hoffman's onlineldavb.py the tests hold it to;

The B-NMF and C-NMF local steps live beside their family, in ``topicbench/nmf_kernels.py``. Callers use the names
re-exported here. ``_cache`` makes the numba cache see edits across these files (and nmf_kernels.py, which
inlines some of them).
"""
from __future__ import annotations

import os


def _check_numba_threads_env() -> None:
    """NUMBA_NUM_THREADS, if set, is a whole number >= 1: numba raises an error that does not name it for 0 and
    silently falls back to the CPU count for text, either way after the user asked for something else; and
    NUMBA_THREADING_LAYER, if set, names a threading layer."""
    value = os.environ.get("NUMBA_NUM_THREADS")
    if value is not None and not (value.strip().isdigit() and int(value) >= 1):
        raise ValueError(f"environment variable NUMBA_NUM_THREADS={value!r} must be a whole number >= 1 "
                         f"(numba's thread pool size); unset it or give a count")


    # numba names neither the variable nor the choices, and only when the first parallel kernel runs (after the
    # corpus is read); https://numba.readthedocs.io/en/stable/user/threading-layer.html
    layer = os.environ.get("NUMBA_THREADING_LAYER")
    known = ("default", "safe", "threadsafe", "forksafe", "tbb", "omp", "workqueue")
    if layer is not None and layer.strip().lower() not in known:
        raise ValueError(f"environment variable NUMBA_THREADING_LAYER={layer!r} is not a numba threading layer "
                         f"(one of {', '.join(known)}); unset it or give one of those")


_check_numba_threads_env()  # before numba reads it

# numba's OpenMP layer (GNU libgomp) spins at every barrier unless told otherwise: a thread waiting for another one
# that the OS has descheduled burns CPU seconds on nothing. Under load that made a fit's CPU time 1.4x (minibatch
# 1024) to 7x (minibatch 16) its work and its wall time up to 8x, with the same numbers (benchmarks/RESULTS.md,
# "OpenMP waiting"), and fit CPU seconds are what Hoffman et al. 2010's Fig. 2 is judged on. Threads that sleep
# while they wait keep a fit's CPU time its own work. Read by libgomp when it loads, i.e. at numba's first parallel
# kernel; a user's own setting is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba  # noqa: E402

from . import _cache

VECTOR_BITS_ENV = "TOPICBENCH_VECTOR_BITS"


def _prefer_wide_vectors() -> str:
    """Let LLVM vectorise the kernels 512 bits wide where the CPU has AVX-512; returns "512", or "default" where
    numba's own choice stands.

    LLVM tunes Intel's AVX-512 CPUs with "prefer-256-bit" (wide vectors once slowed the clock), so numba's loops use
    256-bit registers even there. The E step's sweeps are bound by loads, one double per multiply-add, and 512-bit
    loads move twice the doubles: online LDA's fit on wiki_bnpy and nyt_topmost (K = 50, 100) takes 5-10% less
    time, with the same iterations and lambda to 11 digits (benchmarks/RESULTS.md, "512-bit vectors"). Only the
    summation order inside vectorised dot products changes, so results move in their last bits, as on any other CPU.
    Kept as set: a user's own NUMBA_CPU_FEATURES, NUMBA_CPU_NAME or NUMBA_ENABLE_AVX=0, TOPICBENCH_VECTOR_BITS=256,
    and a process in which numba has already compiled code (its machine is fixed by then)."""
    bits = os.environ.get(VECTOR_BITS_ENV, "512").strip()
    if bits not in ("256", "512"):
        raise ValueError(f"environment variable {VECTOR_BITS_ENV}={os.environ[VECTOR_BITS_ENV]!r} must be 256 or "
                         f"512 (the widest vectors the numba kernels may use); unset it for 512 where the CPU has it")
    from numba.core.codegen import get_host_cpu_features
    from numba.core.registry import cpu_target

    features = get_host_cpu_features()  # numba's own: '' where LLVM cannot read them, no AVX under NUMBA_ENABLE_AVX=0
    wide = features + ",-prefer-256-bit"
    if numba.config.CPU_FEATURES == wide:  # set by an earlier import in this process (the mutation check's copies)
        return "512"
    if (bits == "256" or numba.config.CPU_FEATURES is not None or numba.config.CPU_NAME is not None
            or "_toplevel_target_context" in vars(cpu_target)  # numba made its target machine already: too late
            or "+avx512f" not in features.split(",")):
        return "default"
    numba.config.CPU_FEATURES = wide
    return "512"


VECTOR_BITS = _prefer_wide_vectors()  # before any kernel is defined (numba fixes its target machine at the first)
_cache.register()  # before any kernel is defined

from .dense import N_CHUNKS, natural_gradient_step, rounded_to_one  # noqa: E402
from .lda_estep import SKIP_EPS, SKIP_MARGIN, lda_e_step  # noqa: E402
from .sparse import mixture_probs  # noqa: E402
from .special import digamma, dirichlet_expectation, exp_dirichlet_expectation_t  # noqa: E402

__all__ = ["N_CHUNKS", "SKIP_EPS", "SKIP_MARGIN", "digamma",
           "dirichlet_expectation", "exp_dirichlet_expectation_t", "lda_e_step", "mixture_probs", "natural_gradient_step",
           "numba", "rounded_to_one", "set_threads"]


def set_threads(threads: int) -> int:
    """Limit numba's parallel kernels to ``threads`` (the rule's ``threads:``)."""
    threads = max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(threads)
    return threads
