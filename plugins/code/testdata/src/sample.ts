// Sample module for outline and find_symbol.
export interface Shape {
  name: string;
  area(): number;
}

export type Point = { x: number; y: number };

export enum Color {
  Red,
  Green = "green",
}

export abstract class Polygon implements Shape {
  name = "polygon";
  private sides: number;

  constructor(sides: number) {
    this.sides = sides;
  }

  abstract area(): number;

  perimeter(length: number): number {
    return this.sides * length;
  }
}

export function distance(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

export const scale = (p: Point, k: number): Point => ({ x: p.x * k, y: p.y * k });

declare function overloaded(x: string): string;

namespace Geometry {
  export const ORIGIN: Point = { x: 0, y: 0 };
  export function unit(): Point {
    return { x: 1, y: 0 };
  }
}
