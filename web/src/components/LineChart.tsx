// A uPlot line chart of several (x, y) series with optional log y-axis and
// smoothing; hovering a line shows a tooltip that the caller describes. The
// uPlot instance is reachable as the container element's `uplot` property
// (the browser tests count its plotted points); after each draw the chart's
// root carries `data-drawn-series` (how many series that draw plotted, for
// bench/web's timing).
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

import { seriesColor } from "../colors";
import { smooth } from "../smoothing";

export interface ChartSeries {
  label: string;
  points: [number, number][];
  color?: string;
  dash?: number[];
}

export interface LineChartProps {
  series: ChartSeries[];
  xLabel: string;
  yLabel: string;
  logY: boolean;
  smoothing: number;  // 0 .. 0.99
  height?: number;
  showLegend?: boolean;
  /** The tooltip's lines for the point `dataIndex` of series `seriesIndex` (0-based). */
  describe?: (seriesIndex: number, x: number, y: number | null) => string[];
}

type ChartElement = HTMLDivElement & { uplot?: uPlot };

function alignedData(series: ChartSeries[], logY: boolean, smoothing: number): uPlot.AlignedData {
  const tables = series.map((s): uPlot.AlignedData => {
    const xs = s.points.map((p) => p[0]);
    const raw = s.points.map((p) => (logY && !(p[1] > 0) ? null : p[1]));
    return [xs, smooth(raw, smoothing)];
  });
  if (tables.length === 0) return [[]];
  return uPlot.join(tables);
}

const HOVER_PIXELS = 24;

/** The series (1-based) whose point at data index `idx` is nearest the cursor, within HOVER_PIXELS. */
function nearestSeries(u: uPlot, idx: number): number | null {
  const top = u.cursor.top ?? -1;
  let best: number | null = null;
  let bestDistance = HOVER_PIXELS;
  for (let i = 1; i < u.data.length; i++) {
    const value = u.data[i][idx];
    if (value === null || value === undefined) continue;
    const distance = Math.abs(u.valToPos(value, "y") - top);
    if (distance <= bestDistance) { best = i; bestDistance = distance; }
  }
  return best;
}

function tooltipPlugin(describe: LineChartProps["describe"]): uPlot.Plugin {
  let tip: HTMLDivElement;
  const render = (u: uPlot) => {
    const idx = u.cursor.idx;
    const series = idx === null || idx === undefined ? null : nearestSeries(u, idx);
    if (!describe || series === null) {
      tip.style.display = "none";
      return;
    }
    const y = u.data[series][idx!] ?? null;
    tip.textContent = describe(series - 1, u.data[0][idx!], y as number | null).join("\n");
    tip.style.display = "block";
    const left = u.cursor.left ?? 0;
    tip.style.left = `${Math.min(left + 12, u.over.clientWidth - tip.offsetWidth)}px`;
    tip.style.top = `${(u.cursor.top ?? 0) + 12}px`;
  };
  return {
    hooks: {
      init: (u) => {
        tip = document.createElement("div");
        tip.className = "chart-tooltip";
        u.over.appendChild(tip);
      },
      setCursor: (u) => render(u),
    },
  };
}

const drawnMarker: uPlot.Plugin = {
  hooks: { draw: (u) => { u.root.dataset.drawnSeries = String(u.series.length - 1); } },
};

function options(props: LineChartProps, width: number): uPlot.Options {
  return {
    width,
    height: props.height ?? 320,
    scales: { x: { time: false }, y: { distr: props.logY ? 3 : 1 } },
    axes: [{ label: props.xLabel }, { label: props.yLabel, size: 60 }],
    series: [
      { label: props.xLabel },
      ...props.series.map((s, i) => ({
        label: s.label,
        stroke: s.color ?? seriesColor(i),
        dash: s.dash,
        width: 1.5,
        spanGaps: true,
        points: { show: false },
      })),
    ],
    legend: { show: props.showLegend ?? false },
    cursor: { focus: { prox: 24 }, points: { show: false } },
    focus: { alpha: 0.25 },
    plugins: [tooltipPlugin(props.describe), drawnMarker],
  };
}

/** The layout of a chart: a new uPlot is built when it changes, else the data is swapped in. */
function layoutKey(props: LineChartProps): string {
  return JSON.stringify([props.logY, props.xLabel, props.yLabel, props.showLegend,
                         props.series.map((s) => [s.label, s.color, s.dash])]);
}

export function LineChart(props: LineChartProps) {
  const container = useRef<ChartElement>(null);
  const builtFor = useRef("");
  const describeRef = useRef(props.describe);
  describeRef.current = props.describe;

  useEffect(() => {
    const el = container.current!;
    const data = alignedData(props.series, props.logY, props.smoothing);
    const key = layoutKey(props);
    if (el.uplot && builtFor.current === key) {
      el.uplot.setData(data);
      return;
    }
    el.uplot?.destroy();
    const describe = (s: number, x: number, y: number | null) => describeRef.current?.(s, x, y) ?? [];
    el.uplot = new uPlot(options({ ...props, describe }, el.clientWidth || 600), data, el);
    builtFor.current = key;
  });

  useEffect(() => {
    const el = container.current!;
    const observer = new ResizeObserver(() => el.uplot?.setSize({ width: el.clientWidth, height: props.height ?? 320 }));
    observer.observe(el);
    return () => { observer.disconnect(); el.uplot?.destroy(); el.uplot = undefined; };
  }, []);

  return <div class="line-chart" ref={container} />;
}
