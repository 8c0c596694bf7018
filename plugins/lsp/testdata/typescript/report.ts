import * as geometry from "./geometry";

/** Sums the areas of rectangles (面積の合計). */
export function total(sizes: [number, number][]): number {
  let t = 0;
  for (const [w, h] of sizes) {
    t += /* 面積 */ geometry.area(w, h);
  }
  return t;
}
