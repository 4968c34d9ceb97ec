"""A tiny calculator: the example project of scripts/demo."""

from calc.ops import add, divide, multiply

__all__ = ["add", "divide", "multiply"]
