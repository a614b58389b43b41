"""`python -m fsdpa [options] TRACE [TRACE ...]` runs `fsdpa analyze` with
those arguments, `python -m fsdpa COMMAND ...` (`--version`, `merge`, ...)
runs `fsdpa COMMAND ...`: the CLI installed with the package
(fsdpa/_cli.py), so the options, output and exit statuses are the CLI's."""
from ._cli import main

if __name__ == "__main__":
    main()
