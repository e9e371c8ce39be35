"""mcio: Monte Carlo simulation of mainframe (IBM Z, FICON) I/O performance."""
__version__ = "0.1.0"

from .errors import McioError
from .model import Dist, Model

__all__ = ["McioError", "Dist", "Model", "__version__"]

from .engine import simulate  # noqa: E402

__all__ += ["simulate"]
