import { area, square } from "./geometry";
import { total } from "./report";

console.log("🍕 × 2 =", area(2, 3), square(4), total([[1, 2]]));
