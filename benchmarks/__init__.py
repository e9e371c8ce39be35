"""mcio's asv benchmark suite (see benchmarks/README.md).

asv imports this package without putting the repository root on ``sys.path``; with
``environment_type = "existing"`` it does not install mcio either. Put the working tree first so the
suite always measures the code beside it.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
