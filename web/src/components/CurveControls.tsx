// The controls above a learning-curve chart: metric, metric kind, log y-axis
// and the smoothing slider.
import type { MetricKind } from "../api";

export interface CurveSettings {
  metric: string;
  kind: MetricKind;
  logY: boolean;
  smoothing: number;
}

interface Props {
  settings: CurveSettings;
  names: string[];
  onChange: (settings: CurveSettings) => void;
  showKind?: boolean;
}

export function CurveControls({ settings, names, onChange, showKind = true }: Props) {
  const set = (patch: Partial<CurveSettings>) => onChange({ ...settings, ...patch });
  const options = names.includes(settings.metric) || !settings.metric ? names : [settings.metric, ...names];
  return (
    <div class="curve-controls">
      <label>
        Metric{" "}
        <select class="metric-picker" value={settings.metric}
                onChange={(e) => set({ metric: e.currentTarget.value })}>
          {options.map((name) => <option value={name}>{name}</option>)}
        </select>
      </label>
      {showKind && (
        <label>
          Kind{" "}
          <select value={settings.kind} onChange={(e) => set({ kind: e.currentTarget.value as MetricKind })}>
            <option value="VALIDATION">validation</option>
            <option value="TRAINING">training</option>
          </select>
        </label>
      )}
      <label>
        <input type="checkbox" class="log-y" checked={settings.logY}
               onChange={(e) => set({ logY: e.currentTarget.checked })} /> log y-axis
      </label>
      <label>
        Smoothing{" "}
        <input type="range" class="smoothing" min={0} max={0.99} step={0.01} value={settings.smoothing}
               onInput={(e) => set({ smoothing: Number(e.currentTarget.value) })} />{" "}
        {settings.smoothing.toFixed(2)}
      </label>
    </div>
  );
}
