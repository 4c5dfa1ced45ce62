// A scrolling list that renders only the rows in view (plus a margin), so
// lists of thousands of rows stay fast. Rows have a fixed height.
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

interface Props<T> {
  items: T[];
  rowHeight: number;
  maxHeight: number;
  renderRow: (item: T, index: number) => ComponentChildren;
  /** Keep the view scrolled to the last row as rows are added (a followed log). */
  stickToBottom?: boolean;
}

const OVERSCAN_ROWS = 8;

export function VirtualList<T>({ items, rowHeight, maxHeight, renderRow, stickToBottom = false }: Props<T>) {
  const [scrollTop, setScrollTop] = useState(0);
  const viewport = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = viewport.current;
    if (stickToBottom && el && el.scrollTop + el.clientHeight < el.scrollHeight) el.scrollTop = el.scrollHeight;
  }, [items.length, stickToBottom]);
  const height = Math.min(maxHeight, items.length * rowHeight);
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN_ROWS);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN_ROWS);
  return (
    <div class="virtual-list" ref={viewport} style={{ height, overflowY: "auto" }}
         onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}>
      <div style={{ height: items.length * rowHeight, position: "relative" }}>
        {items.slice(first, last).map((item, offset) => (
          <div class="virtual-row" style={{ position: "absolute", top: (first + offset) * rowHeight, height: rowHeight,
                                            left: 0, right: 0 }}>
            {renderRow(item, first + offset)}
          </div>
        ))}
      </div>
    </div>
  );
}
