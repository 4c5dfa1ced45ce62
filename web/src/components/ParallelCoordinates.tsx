// Parallel coordinates on a canvas: one vertical axis per varying
// hyperparameter and one for the metric, one line per trial coloured by how
// good its metric is (red: best, blue: worst).
import { useEffect, useRef } from "preact/hooks";

import { columnScale, numericScale, prepareCanvas, type AxisScale } from "../axis_scale";
import { rampColor } from "../colors";
import type { HParamColumn } from "../hparams";
import { goodness, type HParamChartProps as Props, type TrialPoint } from "../trial_points";

const HEIGHT = 300;
const MARGIN = { top: 28, bottom: 22, side: 60 };

interface Axis {
  name: string;
  scale: AxisScale;
  value: (p: TrialPoint) => unknown;
}

function axesOf(points: TrialPoint[], columns: HParamColumn[], metric: string): Axis[] {
  const hparamAxes = columns.filter((c) => !c.constant).map((column) => ({
    name: column.name,
    scale: columnScale(column, points.map((p) => p.hparams[column.name])),
    value: (p: TrialPoint) => p.hparams[column.name],
  }));
  const metricValues = points.map((p) => p.metric).filter((m): m is number => m !== null);
  return [...hparamAxes, { name: metric, scale: numericScale(metricValues), value: (p) => p.metric }];
}

function draw(canvas: HTMLCanvasElement, width: number, props: Props): void {
  const ctx = prepareCanvas(canvas, width, HEIGHT);
  const axes = axesOf(props.points, props.columns, props.metric);
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const xOf = (i: number) => (axes.length === 1 ? width / 2 : MARGIN.side + (i * (width - 2 * MARGIN.side)) / (axes.length - 1));
  const yOf = (unit: number) => MARGIN.top + (1 - unit) * plotHeight;
  const good = goodness(props.points, props.smallerIsBetter);
  ctx.lineWidth = 1.2;
  for (const point of props.points) {
    ctx.strokeStyle = rampColor(good(point.metric), point.metric === null ? 0.15 : 0.6);
    ctx.beginPath();
    let drawing = false;
    axes.forEach((axis, i) => {
      const unit = axis.scale.toUnit(axis.value(point));
      if (unit === null) { drawing = false; return; }
      if (drawing) ctx.lineTo(xOf(i), yOf(unit)); else ctx.moveTo(xOf(i), yOf(unit));
      drawing = true;
    });
    ctx.stroke();
  }
  ctx.fillStyle = "#222";
  ctx.strokeStyle = "#555";
  axes.forEach((axis, i) => {
    const x = xOf(i);
    ctx.beginPath(); ctx.moveTo(x, yOf(0)); ctx.lineTo(x, yOf(1)); ctx.stroke();
    ctx.textAlign = "center";
    ctx.fillText(axis.name + (axis.scale.log ? " (log)" : ""), x, MARGIN.top - 12);
    ctx.textAlign = i === axes.length - 1 ? "right" : "left";
    for (const tick of axis.scale.ticks) ctx.fillText(tick.label, x + (i === axes.length - 1 ? -4 : 4), yOf(tick.at) + 4);
  });
}

export function ParallelCoordinates(props: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const el = canvas.current!;
    const redraw = () => draw(el, el.parentElement!.clientWidth, props);
    redraw();
    const observer = new ResizeObserver(redraw);
    observer.observe(el.parentElement!);
    return () => observer.disconnect();
  });
  return <div class="canvas-box"><canvas class="parallel-coordinates" ref={canvas} /></div>;
}
