"""benchmarks/ab_kernels.py's package copy: another tree's ``mcio`` imported beside this one
under its own name, every absolute import and dotted module name in it renamed, nothing else."""
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import ab_kernels  # noqa: E402


def test_renamed_copy_imports_as_its_own_package(tmp_path, monkeypatch):
    src = tmp_path / "src" / "mcio"
    (src / "kernels").mkdir(parents=True)
    (src / "__init__.py").write_text("from mcio.kernels.a import A\nimport mcio.kernels\n")
    (src / "kernels" / "__init__.py").write_text("")
    (src / "kernels" / "a.py").write_text(
        "A = ('mcio.kernels.a', \"mcio.x\", 'mcio_other', 'a mcio word')\n"
        "from . import b\n")
    (src / "kernels" / "b.py").write_text("from mcio import kernels as K\n")
    ab_kernels.rename_package(str(src), str(tmp_path / "dest"), "mcio_zz")
    monkeypatch.syspath_prepend(str(tmp_path / "dest"))
    pkg = importlib.import_module("mcio_zz")
    assert pkg.A == ("mcio_zz.kernels.a", "mcio_zz.x", "mcio_other", "a mcio word")
    assert importlib.import_module("mcio_zz.kernels.b").K is importlib.import_module("mcio_zz.kernels")
    assert "mcio.kernels" not in (tmp_path / "dest" / "mcio_zz" / "__init__.py").read_text()
