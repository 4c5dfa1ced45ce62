// A table with sortable column headers over a virtualised body; the caller
// sorts the rows (on the server or in the page).
import type { ComponentChildren } from "preact";

import { VirtualList } from "./VirtualList";

export interface Column<T> {
  key: string;
  title: string;
  width: string;  // a CSS grid track: "80px", "2fr", ...
  render: (row: T) => ComponentChildren;
  sortable?: boolean;
}

export interface SortOrder {
  key: string;
  descending: boolean;
}

interface Props<T> {
  columns: Column<T>[];
  rows: T[];
  sort: SortOrder;
  onSort: (sort: SortOrder) => void;
  onRowClick?: (row: T) => void;
  rowClass?: (row: T) => string;
  maxHeight?: number;
}

const ROW_HEIGHT = 34;

export function DataGrid<T>({ columns, rows, sort, onSort, onRowClick, rowClass, maxHeight = 560 }: Props<T>) {
  const template = { gridTemplateColumns: columns.map((c) => c.width).join(" ") };
  const headerClick = (column: Column<T>) => {
    if (column.sortable === false) return;
    onSort({ key: column.key, descending: sort.key === column.key ? !sort.descending : false });
  };
  return (
    <div class="data-grid">
      <div class="grid-row grid-header" style={template}>
        {columns.map((column) => (
          <div class={column.sortable === false ? "" : "sortable"} onClick={() => headerClick(column)}
               data-column={column.key}>
            {column.title}
            {sort.key === column.key && (sort.descending ? " ▼" : " ▲")}
          </div>
        ))}
      </div>
      {rows.length === 0 ? <div class="empty">Nothing to show.</div> : (
        <VirtualList items={rows} rowHeight={ROW_HEIGHT} maxHeight={maxHeight} renderRow={(row) => (
          <div class={`grid-row ${onRowClick ? "clickable" : ""} ${rowClass?.(row) ?? ""}`} style={template}
               onClick={() => onRowClick?.(row)}>
            {columns.map((column) => <div class="cell">{column.render(row)}</div>)}
          </div>
        )} />
      )}
    </div>
  );
}
