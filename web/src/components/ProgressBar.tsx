// Progress in [0, 1] as a bar with its percentage.
export function ProgressBar({ value }: { value: number }) {
  const percent = Math.round(Math.min(1, Math.max(0, value)) * 100);
  return (
    <span class="progress" title={`${percent}%`}>
      <span class="progress-fill" style={{ width: `${percent}%` }} />
      <span class="progress-text">{percent}%</span>
    </span>
  );
}
