// Scales and ticks of the dashboard's rate chart. Pure: the SVG is drawn by
// views/dashboard.ts from these numbers.

import type { ProgressPoint } from '../../protocol/webview-protocol';

/** A "nice" upper bound (1, 2, 2.5, 5 × 10^k) at or above `v`. */
export function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const exp = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * exp >= v) return m * exp;
  return 10 * exp;
}

export interface ChartGeometry {
  /** SVG path of the rate line, "M x y L x y ...". */
  path: string;
  /** The same, closed down to the axis (for a filled area). */
  area: string;
  yMax: number;
  tMax: number;
  yTicks: number[];
}

export function rateChart(
  points: readonly ProgressPoint[],
  width: number,
  height: number,
  smoothing = 3,
): ChartGeometry {
  const rates: number[] = points.map((_, i) => {
    const from = Math.max(0, i - smoothing + 1);
    let s = 0;
    for (let j = from; j <= i; j++) s += points[j]!.rate;
    return s / (i - from + 1);
  });
  const tMax = Math.max(1, ...points.map((p) => p.t));
  const yMax = niceMax(Math.max(0, ...rates));
  const x = (t: number): number => (t / tMax) * width;
  const y = (v: number): number => height - (v / yMax) * height;
  let path = '';
  points.forEach((p, i) => {
    path += `${i === 0 ? 'M' : ' L'}${x(p.t).toFixed(1)} ${y(rates[i]!).toFixed(1)}`;
  });
  const area =
    points.length > 0
      ? `${path} L${x(points[points.length - 1]!.t).toFixed(1)} ${height} L${x(points[0]!.t).toFixed(1)} ${height} Z`
      : '';
  return { path, area, yMax, tMax, yTicks: [0, yMax / 2, yMax] };
}
