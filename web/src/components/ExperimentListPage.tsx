// Every experiment: state, progress, searcher, best metric, owner, labels;
// sorted and filtered by the server, refreshed live, rows virtualised.
import { useState } from "preact/hooks";

import { api, type ExperimentQuery, type ExperimentState, type ExperimentSummary } from "../api";
import { formatMetric, formatTime } from "../format";
import { href, navigate } from "../router";
import { usePoll } from "../use_poll";
import { DataGrid, type Column, type SortOrder } from "./DataGrid";
import { ErrorMessage } from "./ErrorMessage";
import { ExperimentActions } from "./ExperimentActions";
import { ProgressBar } from "./ProgressBar";
import { StateBadge } from "./StateBadge";

const STATES: ExperimentState[] = ["ACTIVE", "PAUSED", "COMPLETED", "CANCELED", "ERROR"];
const PAGE_LIMIT = 1000;

function columns(reload: () => void): Column<ExperimentSummary>[] {
  return [
    { key: "id", title: "ID", width: "60px", render: (e) => <a href={href.experiment(e.id)}>{e.id}</a> },
    { key: "name", title: "Name", width: "minmax(140px, 2fr)", render: (e) => e.name },
    { key: "state", title: "State", width: "124px", render: (e) => <StateBadge state={e.state} /> },
    { key: "progress", title: "Progress", width: "120px", render: (e) => <ProgressBar value={e.progress} /> },
    { key: "searcher", title: "Searcher", width: "110px", sortable: false, render: (e) => e.searcher },
    { key: "best", title: "Best", width: "minmax(110px, 1fr)",
      render: (e) => (e.best ? `${e.metric} ${formatMetric(e.best.metric)}` : "–") },
    { key: "num_trials", title: "Trials", width: "60px", sortable: false, render: (e) => e.num_trials },
    { key: "owner", title: "Owner", width: "90px", sortable: false, render: (e) => e.owner },
    { key: "labels", title: "Labels", width: "minmax(80px, 1fr)", sortable: false,
      render: (e) => (e.labels ?? []).map((l) => <span class="label">{l}</span>) },
    { key: "created", title: "Created", width: "150px", render: (e) => formatTime(e.created_at_ms) },
    { key: "actions", title: "", width: "170px", sortable: false,
      render: (e) => <ExperimentActions experiment={e} onDone={reload} compact /> },
  ];
}

export function ExperimentListPage() {
  const [filter, setFilter] = useState<ExperimentQuery>({ state: "", owner: "", q: "", archived: "false" });
  const [sort, setSort] = useState<SortOrder>({ key: "id", descending: true });
  const query = { ...filter, sort: (sort.descending ? "-" : "") + sort.key, offset: 0, limit: PAGE_LIMIT };
  const list = usePoll(() => api.experiments(query), [JSON.stringify(query)]);
  const set = (patch: Partial<ExperimentQuery>) => setFilter({ ...filter, ...patch });
  const rows = list.data?.experiments ?? [];

  return (
    <div class="page experiment-list">
      <div class="page-title">
        <h1>Experiments</h1>
        <a class="button primary" href={href.newExperiment()}>New experiment</a>
      </div>
      <div class="filters">
        <input type="search" class="filter-q" placeholder="Search name or description" value={filter.q}
               onInput={(e) => set({ q: e.currentTarget.value })} />
        <select class="filter-state" value={filter.state}
                onChange={(e) => set({ state: e.currentTarget.value as ExperimentState | "" })}>
          <option value="">any state</option>
          {STATES.map((s) => <option value={s}>{s}</option>)}
        </select>
        <input class="filter-owner" placeholder="owner" value={filter.owner}
               onInput={(e) => set({ owner: e.currentTarget.value })} />
        <label>
          <input type="checkbox" class="filter-archived" checked={filter.archived === "any"}
                 onChange={(e) => set({ archived: e.currentTarget.checked ? "any" : "false" })} /> include archived
        </label>
        {list.data && (
          <span class="count">
            {list.data.total > rows.length ? `first ${rows.length} of ${list.data.total}` : `${list.data.total} experiments`}
          </span>
        )}
      </div>
      <ErrorMessage error={list.error} />
      <DataGrid columns={columns(list.reload)} rows={rows} sort={sort} onSort={setSort}
                onRowClick={(e) => navigate(href.experiment(e.id))} rowClass={(e) => `experiment-row-${e.id}`} />
    </div>
  );
}
