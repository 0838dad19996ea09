"""The type stubs say what the native module has, and the package
type-checks strictly against them."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys

import losslab
from losslab import _native


def test_the_stubs_name_every_native_function_and_nothing_else(repo):
    stub = ast.parse((repo / "python/losslab/_native.pyi").read_text())
    stubbed = {n.name for n in stub.body if isinstance(n, ast.FunctionDef)}
    native = {n for n, v in vars(_native).items() if callable(v) and not n.startswith("_")}
    assert stubbed == native


def test_the_stubs_parameters_are_the_native_ones(repo):
    stub = ast.parse((repo / "python/losslab/_native.pyi").read_text())
    for fn in (n for n in stub.body if isinstance(n, ast.FunctionDef)):
        want = [a.arg for a in fn.args.args]
        got = list(inspect.signature(getattr(_native, fn.name)).parameters)
        assert got == want, fn.name


def test_the_package_type_checks_strictly(repo):
    p = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "losslab"],
        cwd=repo / "python", capture_output=True, text=True,
    )
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_public_api_is_documented():
    for name in losslab.__all__:
        obj = getattr(losslab, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 40, name
