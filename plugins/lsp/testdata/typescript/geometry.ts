/** Returns the area of a w × h rectangle. */
export function area(w: number, h: number): number {
  return w * h;
}

/** Returns the area of a square of side s («côté»). */
export function square(s: number): number {
  return area(s, s);
}
