"""Sums areas."""
import geometry


def total(sizes: list[tuple[float, float]]) -> float:
    """Sum the areas of rectangles (面積の合計)."""
    t = 0.0
    for w, h in sizes:
        t += geometry.area(w, h)  # 面積
    return t
