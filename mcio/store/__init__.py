"""Results on disk (the package's modules: see :mod:`.record` for now; split next)."""
from . import record as _record

globals().update({k: v for k, v in vars(_record).items() if not k.startswith("__")})
__all__ = _record.__all__
