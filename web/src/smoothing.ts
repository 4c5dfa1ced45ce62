// Exponential moving average of a curve, debiased as TensorBoard's smoothing
// slider (weight 0: the raw values; near 1: very smooth). Nulls stay nulls.
export function smooth(values: (number | null)[], weight: number): (number | null)[] {
  if (weight <= 0) return values;
  let average = 0;
  let steps = 0;
  return values.map((value) => {
    if (value === null || !Number.isFinite(value)) return value;
    steps += 1;
    average = average * weight + (1 - weight) * value;
    return average / (1 - Math.pow(weight, steps));
  });
}
