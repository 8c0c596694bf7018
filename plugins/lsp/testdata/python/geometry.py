"""Measures shapes."""


def area(w: float, h: float) -> float:
    """Return the area of a w × h rectangle."""
    return w * h


def square(s: float) -> float:
    """Return the area of a square of side s («côté»)."""
    return area(s, s)
