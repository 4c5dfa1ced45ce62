// The metric against one hyperparameter: one dot per validated trial; the
// hovered dot's trial and value are shown.
import { useEffect, useRef, useState } from "preact/hooks";

import { columnScale, numericScale, prepareCanvas } from "../axis_scale";
import { rampColor } from "../colors";
import { formatMetric, formatValue } from "../format";
import type { HParamColumn } from "../hparams";
import { goodness, type HParamChartProps as Props, type TrialPoint } from "../trial_points";

const HEIGHT = 300;
const MARGIN = { left: 64, right: 20, top: 16, bottom: 40 };

interface Dot {
  x: number;
  y: number;
  point: TrialPoint;
}

function draw(canvas: HTMLCanvasElement, width: number, props: Props, column: HParamColumn): Dot[] {
  const ctx = prepareCanvas(canvas, width, HEIGHT);
  const validated = props.points.filter((p) => p.metric !== null);
  const xScale = columnScale(column, validated.map((p) => p.hparams[column.name]));
  const yScale = numericScale(validated.map((p) => p.metric as number));
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const good = goodness(props.points, props.smallerIsBetter);
  const dots: Dot[] = [];
  for (const point of validated) {
    const ux = xScale.toUnit(point.hparams[column.name]);
    const uy = yScale.toUnit(point.metric);
    if (ux === null || uy === null) continue;
    const dot = { x: MARGIN.left + ux * plotWidth, y: MARGIN.top + (1 - uy) * plotHeight, point };
    ctx.fillStyle = rampColor(good(point.metric), 0.8);
    ctx.beginPath(); ctx.arc(dot.x, dot.y, 4, 0, 2 * Math.PI); ctx.fill();
    dots.push(dot);
  }
  ctx.strokeStyle = "#555";
  ctx.strokeRect(MARGIN.left, MARGIN.top, plotWidth, plotHeight);
  ctx.fillStyle = "#222";
  ctx.textAlign = "center";
  for (const tick of xScale.ticks) ctx.fillText(tick.label, MARGIN.left + tick.at * plotWidth, HEIGHT - MARGIN.bottom + 14);
  ctx.fillText(column.name + (xScale.log ? " (log)" : ""), MARGIN.left + plotWidth / 2, HEIGHT - 6);
  ctx.textAlign = "right";
  for (const tick of yScale.ticks) ctx.fillText(tick.label, MARGIN.left - 4, MARGIN.top + (1 - tick.at) * plotHeight + 4);
  ctx.save();
  ctx.translate(14, MARGIN.top + plotHeight / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textAlign = "center";
  ctx.fillText(props.metric, 0, 0);
  ctx.restore();
  return dots;
}

export function HParamScatter(props: Props) {
  const choices = props.columns.filter((c) => !c.constant);
  const [chosen, setChosen] = useState("");
  const [hovered, setHovered] = useState<Dot | null>(null);
  const column = choices.find((c) => c.name === chosen) ?? choices[0];
  const canvas = useRef<HTMLCanvasElement>(null);
  const dots = useRef<Dot[]>([]);

  useEffect(() => {
    const el = canvas.current;
    if (!el || !column) return;
    const redraw = () => { dots.current = draw(el, el.parentElement!.clientWidth, props, column); };
    redraw();
    const observer = new ResizeObserver(redraw);
    observer.observe(el.parentElement!);
    return () => observer.disconnect();
  });

  if (!column) return <p class="empty">No hyperparameter varies across the trials.</p>;
  const onMove = (e: MouseEvent) => {
    const rect = (e.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    const near = dots.current.filter((d) => Math.hypot(d.x - x, d.y - y) < 8);
    setHovered(near[0] ?? null);
  };
  return (
    <div class="hparam-scatter">
      <label>
        Hyperparameter{" "}
        <select value={column.name} onChange={(e) => setChosen(e.currentTarget.value)}>
          {choices.map((c) => <option value={c.name}>{c.name}</option>)}
        </select>
      </label>
      <div class="canvas-box">
        <canvas ref={canvas} onMouseMove={onMove} onMouseLeave={() => setHovered(null)} />
        {hovered && (
          <div class="chart-tooltip" style={{ display: "block", left: hovered.x + 10, top: hovered.y + 10 }}>
            {`trial ${hovered.point.trialId}\n${column.name} = ${formatValue(hovered.point.hparams[column.name])}\n`
              + `${props.metric} = ${formatMetric(hovered.point.metric)}`}
          </div>
        )}
      </div>
    </div>
  );
}
