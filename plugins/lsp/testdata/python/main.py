from geometry import area, square
from report import total

print("🍕 × 2 =", area(2, 3), square(4), total([(1.0, 2.0)]))
