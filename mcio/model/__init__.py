"""Typed, validated model parameters (TOML in and out)."""
from .dist import Dist
from .spec import Model, load_toml

__all__ = ["Dist", "Model", "load_toml"]
