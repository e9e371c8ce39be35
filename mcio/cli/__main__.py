"""``python -m mcio.cli``: the ``mcio`` command."""
from . import main

main()
