"""The command-line tool from Python: `python -m fsdpa TRACE...` is
`fsdpa analyze TRACE...` (the same arguments, output and exit status,
because it is the same program), `python -m fsdpa COMMAND ...` and
`python -m fsdpa --version` are `fsdpa COMMAND ...` and `fsdpa --version`,
and the `fsdpa` script pip installs is `fsdpa` itself.

The program is the CLI built with the package and installed next to its
libfsdpa copy (fsdpa/fsdpa, bindings/python/meson.build).  Run from a source
tree (the package on PYTHONPATH) there is none: then $FSDPA_CLI, else the
`fsdpa` on PATH."""
import os
import shutil
import subprocess
import sys
from typing import Any, List, NoReturn, Optional, Sequence

# Exit status when no fsdpa program can be found, as a shell reports a
# command it cannot find (the CLI's own statuses are 0..3).
EXIT_NO_CLI = 127


def packaged_cli() -> Optional[str]:
    """The CLI installed with the package (fsdpa/fsdpa), or None."""
    p = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fsdpa")
    return p if os.path.isfile(p) and os.access(p, os.X_OK) else None


def cli_path() -> Optional[str]:
    """The fsdpa program `python -m fsdpa` runs: the packaged one, else
    $FSDPA_CLI, else `fsdpa` on PATH; None if there is none."""
    p = packaged_cli() or os.environ.get("FSDPA_CLI") or None
    if p is None:
        found = shutil.which("fsdpa")
        # the `fsdpa` script pip installs runs this module: not a CLI
        if found and not _is_python_script(found):
            p = found
    return p


def _is_python_script(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return False
    return head.startswith(b"#!") and b"python" in head.split(b"\n", 1)[0]


def _missing() -> int:
    print("fsdpa: no fsdpa program to run: the package was not installed with it "
          "(pip install .) and neither $FSDPA_CLI nor `fsdpa` on PATH names one",
          file=sys.stderr)
    return EXIT_NO_CLI


def run(args: Sequence[str], **popen: Any) -> int:
    """Run `fsdpa ARGS...` in a child process and return its exit status
    (128 + N if signal N ended it); `popen`: subprocess.call's keywords
    (stdout=..., cwd=...)."""
    exe = cli_path()
    if exe is None:
        return _missing()
    rc = subprocess.call([exe, *args], **popen)
    return 128 - rc if rc < 0 else rc


def _exec(args: List[str]) -> NoReturn:
    """Replace this process with `fsdpa ARGS...` (its exit status, signals,
    standard streams and terminal are the program's own)."""
    exe = cli_path()
    if exe is None:
        sys.exit(_missing())
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, ["fsdpa", *args])


# What `fsdpa` takes as its first word: `python -m fsdpa WORD ...` passes
# them through, so `python -m fsdpa --version` and `python -m fsdpa merge
# ...` are the CLI's own.
_CLI_WORDS = ("analyze", "annotate", "summarize", "merge", "render", "params", "version", "help",
              "--version", "--help", "-h")


def main(argv: Optional[Sequence[str]] = None) -> NoReturn:
    """`python -m fsdpa [options] TRACE...`: `fsdpa analyze [options] TRACE...`;
    `python -m fsdpa COMMAND ...` (or `--version`, `--help`): `fsdpa COMMAND ...`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("--version", "version") and cli_path() is None:
        # the version is the library's, which Python has loaded anyway
        from . import version
        print("fsdpa " + version())
        sys.exit(0)
    if args and args[0] in _CLI_WORDS:
        _exec(args)
    _exec(["analyze", *args])


def console() -> NoReturn:
    """The `fsdpa` script: the CLI with its arguments as given."""
    _exec(sys.argv[1:])
