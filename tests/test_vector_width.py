"""The kernels' vector width (topicbench.kernels._prefer_wide_vectors): 512-bit where the CPU has AVX-512, and
every way a user or another library already chose one is kept. Each case runs in a fresh interpreter, because numba
fixes its target machine once per process."""
import os
import subprocess
import sys

import pytest

PROBE = """
import numba
{before}
import topicbench.kernels as k
print(k.VECTOR_BITS, numba.config.CPU_FEATURES)
"""


def probe(before="", **env):
    clean = {k: v for k, v in os.environ.items()
             if k not in ("TOPICBENCH_VECTOR_BITS", "NUMBA_CPU_FEATURES", "NUMBA_CPU_NAME", "NUMBA_ENABLE_AVX")}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(before=before)], capture_output=True, text=True,
                          env={**clean, **env}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    bits, features = proc.stdout.split(" ", 1)
    return bits, features.strip()


def host_has_avx512():
    from numba.core.codegen import get_host_cpu_features

    return "+avx512f" in get_host_cpu_features().split(",")


@pytest.mark.skipif(not host_has_avx512(), reason="the host CPU has no AVX-512: numba's width is already the widest")
def test_avx512_host_gets_512_bit_vectors():
    bits, features = probe()
    assert bits == "512" and features.endswith(",-prefer-256-bit") and "+avx512f" in features.split(","), features


@pytest.mark.parametrize("before, env, numbas_features", [
    pytest.param("", {"TOPICBENCH_VECTOR_BITS": "256"}, "None", id="asked-for-256"),
    pytest.param("", {"NUMBA_CPU_FEATURES": "+64bit,+sse2"}, "+64bit,+sse2", id="user-numba-features"),
    pytest.param("", {"NUMBA_CPU_NAME": "generic"}, "", id="user-numba-cpu-name"),  # numba's own '' for generic
    pytest.param("numba.njit(lambda x: x)(1)", {}, "None", id="numba-compiled-before"),
    pytest.param("", {"NUMBA_ENABLE_AVX": "0"}, "None", id="user-disabled-avx"),
])
def test_a_width_chosen_elsewhere_is_kept(before, env, numbas_features):
    """Nothing overrides the user's numba settings, and a process whose numba already made its target machine is
    not told a width it would not use (the ``VECTOR_BITS`` it reports would be false)."""
    bits, features = probe(before, **env)
    assert bits == "default", (bits, features)
    assert features == numbas_features, features
