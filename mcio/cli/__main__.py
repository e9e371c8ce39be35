"""``python -m mcio.cli``: the ``mcio`` command."""
from . import console

console()
