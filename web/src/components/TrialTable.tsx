// An experiment's trials: state, hyperparameters, progress and best
// validation metric, sortable by any column; a row opens its trial.
import { useState } from "preact/hooks";

import type { TrialSummary } from "../api";
import { formatMetric, formatValue } from "../format";
import { flattenHParams, hparamColumns } from "../hparams";
import { href, navigate } from "../router";
import { DataGrid, type Column, type SortOrder } from "./DataGrid";
import { StateBadge } from "./StateBadge";

interface Row {
  trial: TrialSummary;
  hparams: Record<string, unknown>;
}

function sortValue(row: Row, key: string): unknown {
  if (key.startsWith("hp:")) return row.hparams[key.slice(3)];
  return row.trial[key as keyof TrialSummary];
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

export function TrialTable({ trials, metric }: { trials: TrialSummary[]; metric: string }) {
  const [sort, setSort] = useState<SortOrder>({ key: "id", descending: false });
  const rows = trials.map((trial) => ({ trial, hparams: flattenHParams(trial.hparams) }));
  const hparams = hparamColumns(rows.map((r) => r.hparams));
  const columns: Column<Row>[] = [
    { key: "id", title: "Trial", width: "70px", render: (r) => <a href={href.trial(r.trial.id)}>{r.trial.id}</a> },
    { key: "state", title: "State", width: "124px", render: (r) => <StateBadge state={r.trial.state} /> },
    ...hparams.map((h): Column<Row> => ({
      key: `hp:${h.name}`, title: h.name, width: "minmax(90px, 1fr)", render: (r) => formatValue(r.hparams[h.name]),
    })),
    { key: "batches_trained", title: "Batches", width: "90px", render: (r) => r.trial.batches_trained },
    { key: "best_validation", title: `Best ${metric}`, width: "120px", render: (r) => formatMetric(r.trial.best_validation) },
    { key: "restarts", title: "Restarts", width: "80px", render: (r) => r.trial.restarts },
  ];
  const sorted = [...rows].sort((a, b) => {
    const order = compare(sortValue(a, sort.key), sortValue(b, sort.key));
    return sort.descending ? -order : order;
  });
  return (
    <section class="panel trial-table">
      <h2>Trials ({trials.length})</h2>
      <DataGrid columns={columns} rows={sorted} sort={sort} onSort={setSort}
                onRowClick={(r) => navigate(href.trial(r.trial.id))} rowClass={(r) => `trial-row-${r.trial.id}`} />
    </section>
  );
}
