"""The ``mcio`` command group and its one error policy.

- :class:`~mcio.McioError` (a bad input: it names the field, the value and what is allowed), or an
  OSError about a file (missing, unreadable, unwritable: the path and the reason): one line
  ``mcio: error: ...`` on stderr, exit code 2;
- an exception raised while Numba loaded a compiled kernel from its on-disk cache (a damaged
  ``*.nbi`` / ``*.nbc`` file): one line naming the cache directory and the command that clears
  it, exit code 2 (:func:`numba_cache_dirs` recognises it);
- any other exception is a bug in mcio: its traceback, then a line asking to report it, exit 1;
- Ctrl-C (KeyboardInterrupt, whatever raised it: the kernels stopped by :mod:`mcio.interrupt`, a
  sweep's :class:`~mcio.interrupt.SweepInterrupted`, or Python's own handler in any other stage):
  one line ``mcio: interrupted: ...`` on stderr, exit 130 (128 + SIGINT), for every command of the
  group, those added later included. A sweep says what it kept; a command that writes only at its
  end has written nothing.

Set ``MCIO_DEBUG=1`` to get the traceback of a bad input too. The ``mcio isfc`` group uses the
same class, so it behaves alike when invoked on its own.
"""
from __future__ import annotations

import os
import sys
import traceback

import click

from ..errors import McioError
from ..kernelcache import damage_text, numba_cache_dirs

EXIT_BAD_INPUT = 2
EXIT_BUG = 1
EXIT_INTERRUPTED = 130   # 128 + SIGINT, what a shell reports for a process Ctrl-C ended
INTERRUPTED = "mcio: interrupted: the run was stopped before it finished; nothing written"
REPORT_TO = "the mcio maintainers (with the command line and this traceback)"


class McioGroup(click.Group):
    """A click group applying the error policy of this module to every command below it."""

    def invoke(self, ctx):
        _warnings_as_lines()
        try:
            return super().invoke(ctx)
        except click.exceptions.UsageError as e:
            # one line like every other bad input, not click's three (usage, hint, error)
            if os.environ.get("MCIO_DEBUG"):
                raise
            cmd = e.ctx.command_path if e.ctx is not None else "mcio"
            click.echo(f"mcio: error: {one_line(e.format_message())} (see {cmd} --help)", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise  # click's own exits
        except KeyboardInterrupt as e:
            interrupted(ctx, e)
        except BrokenPipeError:
            # the reader went away (mcio ... | head): not an error of ours; quiet, like cat
            sys.stderr.close()
            ctx.exit(141)
        except McioError as e:
            if os.environ.get("MCIO_DEBUG"):
                raise
            click.echo(f"mcio: error: {one_line(e)}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except OSError as e:
            if os.environ.get("MCIO_DEBUG"):
                raise
            if e.filename is None:  # not about a file the user named: a bug like any other
                _cache_or_bug(ctx, e)
            click.echo(f"mcio: error: {one_line(e)}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except Exception as e:  # noqa: BLE001 - anything else is a bug: say so loudly
            if os.environ.get("MCIO_DEBUG"):
                raise
            _cache_or_bug(ctx, e)


def interrupted(ctx, e: BaseException | None = None):
    """Ctrl-C's one line and exit 130: ``str(e)`` of an interrupt that says what it kept (a
    SweepInterrupted), else :data:`INTERRUPTED`. Another press while the line is written is
    ignored (it would cut the line short); the handler before is restored after."""
    import signal
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # not the main thread: nothing to protect
        old = None
    try:
        text = str(e) if e is not None and type(e) is not KeyboardInterrupt and str(e) else ""
        click.echo(f"mcio: {text}" if text else INTERRUPTED, err=True)
    finally:
        if old is not None:
            signal.signal(signal.SIGINT, old)
    ctx.exit(getattr(e, "exit_code", EXIT_INTERRUPTED))


def _warnings_as_lines() -> None:
    """mcio's own warnings (McioWarning: a long run ahead, damaged parts recomputed) as one
    ``mcio: warning: ...`` line each; other warnings as Python shows them."""
    import warnings
    from ..errors import McioWarning
    orig = warnings.showwarning
    if getattr(orig, "_mcio", False):
        return

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, McioWarning):
            click.echo(f"mcio: warning: {' '.join(str(message).split())}", err=True)
        else:
            orig(message, category, filename, lineno, file, line)
    show._mcio = True
    warnings.showwarning = show


def _bug(ctx):
    traceback.print_exc(file=sys.stderr)
    click.echo(f"mcio: internal error: this is a bug in mcio, please report it to {REPORT_TO}", err=True)
    ctx.exit(EXIT_BUG)


def cache_message(e: BaseException, dirs: list[str]) -> str:
    """The one line for a damaged Numba cache: what failed, where, and the command that clears it
    (the kernels are compiled again at the next run): :func:`mcio.kernelcache.damage_text`."""
    return f"mcio: error: {damage_text(e, dirs)}"


def _cache_or_bug(ctx, e: BaseException):
    dirs = numba_cache_dirs(e)
    if dirs is None:
        _bug(ctx)
    click.echo(cache_message(e, dirs), err=True)
    ctx.exit(EXIT_BAD_INPUT)


def one_line(e) -> str:
    """The error as one line: McioError's text, or ``path: reason`` for a file error."""
    if isinstance(e, str):
        return " ".join(e.split())
    if isinstance(e, OSError) and not isinstance(e, McioError) and e.filename is not None:
        text = f"{e.filename}: {e.strerror or e}"
    else:
        text = str(e) or type(e).__name__
    return " ".join(text.split())


@click.group(cls=McioGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mcio", prog_name="mcio")
def main():
    """mcio: Monte Carlo simulation of IBM Z (FICON) I/O performance."""


def set_threads(n: int | None) -> None:
    """Numba's thread count (McioError outside 1..NUMBA_NUM_THREADS)."""
    if n is None:
        return
    import numba
    top = numba.config.NUMBA_NUM_THREADS
    if not 1 <= n <= top:
        raise McioError("--threads", n, f"must be in 1..{top} (NUMBA_NUM_THREADS)")
    numba.set_num_threads(n)


__all__ = ["main", "McioGroup", "one_line", "numba_cache_dirs", "cache_message", "set_threads", "interrupted",
           "EXIT_BAD_INPUT", "EXIT_BUG", "EXIT_INTERRUPTED"]
