"""What a non-editable install (pip install ., a wheel) holds: the package as pyproject.toml lists it, built by
setuptools into a temporary folder, against the source tree."""
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_built_package_holds_every_module_and_the_source_models(tmp_path):
    """A non-editable install of the package (pip install ., a wheel) -> every module, subpackage and source model in it.

    Was: pyproject.toml listed only the top package, so the build lacked topicbench/kernels/ and every import of the
    package failed."""
    src, build = tmp_path / "src", tmp_path / "build"  # a copy: setuptools writes its egg-info beside pyproject.toml
    shutil.copytree(REPO / "topicbench", src / "topicbench", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    proc = subprocess.run([sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py", "-d",
                           str(build)], cwd=src, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    source = REPO / "topicbench"
    wanted = {p.relative_to(REPO).as_posix() for p in source.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and p.suffix in (".py", ".npz", ".md")}
    built = {p.relative_to(build).as_posix() for p in build.rglob("*") if p.is_file()}
    assert sorted(wanted - built) == []
    assert {f"topicbench/data/sources/{s}.npz" for s in ("nyt", "wiki", "science", "twitter")} <= built
