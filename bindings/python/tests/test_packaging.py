"""The package as `pip install .` installs it (pyproject.toml,
bindings/python/meson.build): every module in the wheel, py.typed and type
hints on the whole public API, `__version__`, the library the package
carries loaded before $FSDPA_LIBRARY, and `python -m fsdpa` = `fsdpa
analyze`.  The pip install itself, in a fresh virtualenv, is
.ci/pip-check.sh."""
import importlib.metadata
import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import fsdpa
import fsdpa.dask
from fsdpa import _cli, _lib

from . import support

PKG = os.path.dirname(os.path.abspath(fsdpa.__file__))
SRC_PKG = os.path.join(support.BINDINGS, "python", "fsdpa")


def meson_project_version():
    with open(os.path.join(support.ROOT, "meson.build"), encoding="utf-8") as f:
        m = re.search(r"project\([^)]*?\bversion:\s*'([^']+)'", f.read(), re.S)
    return m.group(1)


def _defined_here(fn):
    """A function written in the package's sources (not one dataclasses or
    the standard library made)."""
    code = getattr(fn, "__code__", None)
    return code is not None and os.path.dirname(os.path.abspath(code.co_filename)) == PKG


def public_api():
    """(qualified name, function, is_method) for every public function of
    the package (fsdpa.__all__ and fsdpa.dask) and every public or special
    method and property of its public classes and their bases in the
    package."""
    objs = [(n, getattr(fsdpa, n)) for n in fsdpa.__all__]
    objs += [(f"dask.{n}", getattr(fsdpa.dask, n)) for n in dir(fsdpa.dask)
             if not n.startswith("_") and inspect.isfunction(getattr(fsdpa.dask, n))]
    seen = set()
    for name, obj in objs:
        if inspect.isfunction(obj):
            if _defined_here(obj):
                yield name, obj, False
            continue
        if not inspect.isclass(obj):
            continue
        for klass in obj.__mro__:
            if klass in seen or not klass.__module__.startswith("fsdpa"):
                continue
            seen.add(klass)
            for attr, v in vars(klass).items():
                if attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__")):
                    continue
                if isinstance(v, (staticmethod, classmethod)):
                    v = v.__func__
                elif isinstance(v, property):
                    v = v.fget
                if inspect.isfunction(v) and _defined_here(v):
                    yield f"{klass.__name__}.{attr}", v, True


class PackageTest(unittest.TestCase):
    def test_meson_installs_every_module(self):
        """bindings/python/meson.build lists every module of fsdpa/ (a
        module left out would be missing from the wheel) and py.typed."""
        with open(os.path.join(support.BINDINGS, "python", "meson.build"), encoding="utf-8") as f:
            text = f.read()
        listed = re.findall(r"'fsdpa/([^']+)'", text)
        modules = sorted(n for n in os.listdir(SRC_PKG) if n.endswith(".py"))
        self.assertEqual(sorted(x for x in listed if x.endswith(".py")), modules)
        self.assertIn("py.typed", listed)
        self.assertTrue(os.path.isfile(os.path.join(SRC_PKG, "py.typed")))

    def test_py_typed(self):
        self.assertTrue(os.path.isfile(os.path.join(PKG, "py.typed")))

    def test_public_api_is_annotated(self):
        """Every parameter (but self/cls) and the return of every public
        function, method and property has a type annotation."""
        api = list(public_api())
        self.assertGreater(len(api), 80, "the walk found too little of the API")
        missing = []
        for name, fn, method in api:
            sig = inspect.signature(fn)
            params = list(sig.parameters.values())
            if method and params and params[0].name in ("self", "cls"):
                params = params[1:]
            lack = [p.name for p in params if p.annotation is inspect.Parameter.empty]
            if sig.return_annotation is inspect.Signature.empty:
                lack.append("return")
            if lack:
                missing.append(f"{name}: {', '.join(lack)}")
        self.assertEqual(missing, [], "public functions without type hints")

    def test_mypy(self):
        """mypy finds nothing in the package, untyped definitions included
        (where mypy is installed)."""
        try:
            import mypy  # noqa: F401
        except ImportError:
            print(f"\n# SKIP mypy: not installed for {sys.executable} "
                  "(apt-get install python3-mypy)")
            self.skipTest("mypy is not installed")
        with tempfile.TemporaryDirectory() as cache:
            r = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", cache,
                                "--disallow-untyped-defs", "--disallow-incomplete-defs",
                                SRC_PKG], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = r.stdout.decode("utf-8", "replace")
        self.assertEqual(r.returncode, 0, out)
        self.assertIn("Success", out)

    def test_version(self):
        """__version__ is the loaded library's version, which is meson's
        project version; an installed distribution carries the same."""
        self.assertEqual(fsdpa.__version__, fsdpa.version())
        self.assertEqual(fsdpa.__version__, meson_project_version())
        try:
            dist = importlib.metadata.distribution("fsdpa")
        except importlib.metadata.PackageNotFoundError:
            return  # run from the source tree
        if os.path.realpath(str(dist.locate_file("fsdpa"))) == os.path.realpath(PKG):
            self.assertEqual(dist.version, fsdpa.__version__)


def _copy_package(dest):
    """A copy of the package's sources under dest/fsdpa (no library, no CLI)."""
    shutil.copytree(SRC_PKG, os.path.join(dest, "fsdpa"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.so*", "fsdpa"))
    return os.path.join(dest, "fsdpa")


def _python(code, env, cwd):
    """Run code in `cwd` (not the tests' directory, whose fsdpa/ would come
    first on sys.path)."""
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _env(**kw):
    env = {k: v for k, v in os.environ.items()
           if k not in ("FSDPA_LIBRARY", "PYTHONPATH", "FSDPA_CLI")}
    env.update({k: v for k, v in kw.items() if v is not None})
    return env


class LibraryChoiceTest(unittest.TestCase):
    """The library a package carries (fsdpa/libfsdpa.so.2) is the one it
    loads, whatever $FSDPA_LIBRARY says; without it $FSDPA_LIBRARY is used,
    as in a source tree."""

    def setUp(self):
        self.lib = _lib.LOADED
        if not os.path.isabs(self.lib):
            self.skipTest("the library was not loaded from a path")

    def test_packaged_copy_first(self):
        with tempfile.TemporaryDirectory() as d:
            pkg = _copy_package(d)
            shutil.copy(self.lib, os.path.join(pkg, _lib.SONAME))
            code = "import fsdpa, fsdpa._lib as L; print(L.LOADED); print(fsdpa.__version__)"
            # a bogus $FSDPA_LIBRARY: the packaged copy is loaded before it
            r = _python(code, _env(PYTHONPATH=d, FSDPA_LIBRARY="/nonexistent/libfsdpa.so.2"), d)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            loaded, version = r.stdout.decode().split()
            self.assertEqual(loaded, os.path.join(pkg, _lib.SONAME))
            self.assertEqual(version, fsdpa.__version__)

    def test_fsdpa_library_without_a_copy(self):
        with tempfile.TemporaryDirectory() as d:
            _copy_package(d)
            code = "import fsdpa._lib as L; print(L.LOADED)"
            r = _python(code, _env(PYTHONPATH=d, FSDPA_LIBRARY=self.lib), d)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            self.assertEqual(r.stdout.decode().strip(), self.lib)
            r = _python(code, _env(PYTHONPATH=d, FSDPA_LIBRARY="/nonexistent/libfsdpa.so.2"), d)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("FSDPA_LIBRARY", r.stderr.decode())


class MainTest(unittest.TestCase):
    """`python -m fsdpa ARGS` runs `fsdpa analyze ARGS`: same output, same
    exit status."""

    def setUp(self):
        self.cli = support.cli()
        if not os.path.exists(self.cli):
            self.skipTest(f"no CLI at {self.cli}")

    def _both(self, *args):
        env = _env(PYTHONPATH=os.path.dirname(PKG), FSDPA_LIBRARY=os.environ.get("FSDPA_LIBRARY"),
                   FSDPA_CLI=self.cli)
        mine = subprocess.run([sys.executable, "-m", "fsdpa", *args], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        theirs = subprocess.run([self.cli, "analyze", *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        return mine, theirs

    def test_same_report_and_status(self):
        cases = [
            ("--format", "json", "--no-progress", support.TINY),   # 0, the JSON report
            ("--format", "text", "--no-progress", support.TINY),   # 0, the text report
            ("--fail-on", "info", "--no-progress", support.TINY),  # 1, findings at info
            ("--no-such-option", support.TINY),                    # 2, bad usage
            ("--no-progress", "/nonexistent/trace.json"),          # 3, unreadable input
        ]
        statuses = set()
        for args in cases:
            with self.subTest(args=args):
                mine, theirs = self._both(*args)
                self.assertEqual(mine.returncode, theirs.returncode, mine.stderr.decode())
                self.assertEqual(mine.stdout, theirs.stdout)
                self.assertEqual(mine.stderr, theirs.stderr)
                statuses.add(theirs.returncode)
        self.assertEqual(statuses, {0, 1, 2, 3})

    def test_packaged_cli_first(self):
        """An installed package runs its own CLI (fsdpa/fsdpa) with
        `analyze` before the arguments; $FSDPA_CLI only without it."""
        with tempfile.TemporaryDirectory() as d:
            pkg = _copy_package(d)
            fake = os.path.join(pkg, "fsdpa")
            with open(fake, "w", encoding="utf-8") as f:
                f.write('#!/bin/sh\necho "packaged $*"\nexit 5\n')
            os.chmod(fake, 0o755)
            env = _env(PYTHONPATH=d, FSDPA_LIBRARY=_lib.LOADED, FSDPA_CLI=self.cli)
            r = subprocess.run([sys.executable, "-m", "fsdpa", "--format", "json", "x.json"],
                               env=env, cwd=d, stdout=subprocess.PIPE)
            self.assertEqual(r.returncode, 5)
            self.assertEqual(r.stdout.decode().strip(), "packaged analyze --format json x.json")

    def test_no_cli(self):
        with tempfile.TemporaryDirectory() as d:
            _copy_package(d)
            env = _env(PYTHONPATH=d, FSDPA_LIBRARY=_lib.LOADED, PATH=d)
            r = subprocess.run([sys.executable, "-m", "fsdpa", support.TINY], env=env, cwd=d,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.assertEqual(r.returncode, _cli.EXIT_NO_CLI)
            self.assertIn("no fsdpa program", r.stderr.decode())

    def test_run(self):
        """fsdpa._cli.run(): the CLI with its arguments as given, in a
        child process."""
        old = os.environ.get("FSDPA_CLI")
        os.environ["FSDPA_CLI"] = self.cli
        try:
            if _cli.packaged_cli() is None:
                self.assertEqual(_cli.cli_path(), self.cli)
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
            self.assertEqual(_cli.run(["--version"], **quiet), 0)
            self.assertEqual(_cli.run(["no-such-command"], **quiet), 2)
        finally:
            if old is None:
                del os.environ["FSDPA_CLI"]
            else:
                os.environ["FSDPA_CLI"] = old


if __name__ == "__main__":
    unittest.main()
