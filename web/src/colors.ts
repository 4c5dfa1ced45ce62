// Distinct colours for many series: hues spaced by the golden angle.
export function seriesColor(index: number): string {
  return `hsl(${Math.round((index * 137.508) % 360)}, 65%, 45%)`;
}

/** A colour for a value in [0, 1] on a blue (0) to red (1) ramp. */
export function rampColor(t: number, alpha = 1): string {
  const clamped = Math.min(1, Math.max(0, t));
  return `hsla(${Math.round(230 - 230 * clamped)}, 75%, 45%, ${alpha})`;
}
