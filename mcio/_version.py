"""The package version, in a module of its own so that submodules need not import ``mcio``."""
__version__ = "0.1.0"
