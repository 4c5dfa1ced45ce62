// The typed client of the master's HTTP JSON API (/api/v1, http/openapi.yaml).
// Every call is authenticated by the HttpOnly `volador_token` cookie that
// login sets; a failed call rejects with an ApiError carrying the server's
// JSON error.

export type ExperimentState = "ACTIVE" | "PAUSED" | "COMPLETED" | "CANCELED" | "ERROR";
export type MetricKind = "VALIDATION" | "TRAINING";
export type HParams = Record<string, unknown>;

export interface User {
  name: string;
  admin: boolean;
  created_at_ms?: number;
  disabled?: boolean;
}

export interface LoginResult {
  token: string;
  expires_at_ms: number;
  user: User;
}

export interface ExperimentSummary {
  id: number;
  name: string;
  state: ExperimentState;
  progress: number;
  searcher: string;
  metric: string;
  smaller_is_better: boolean;
  num_trials: number;
  best: { metric: number; trial_id: number } | null;
  created_at_ms: number;
  ended_at_ms: number;  // 0 while not ended
  error: string;        // why it ended in ERROR, else empty
  owner: string;
  archived: boolean;
  labels?: string[];
}

export interface ExperimentList {
  experiments: ExperimentSummary[];
  total: number;
  offset: number;
  limit: number;
}

export interface ExperimentQuery {
  state?: ExperimentState | "";
  owner?: string;
  q?: string;
  archived?: "false" | "true" | "any";  // default false: archived ones left out
  sort?: string;
  offset?: number;
  limit?: number;
}

export interface TrialSummary {
  id: number;
  experiment_id: number;
  request_id: number;
  state: string;
  hparams: HParams;
  seed: number;
  batches_trained: number;
  restarts: number;
  best_validation: number | null;
  error: string;        // why it ended in ERROR, else empty
  created_at_ms: number;
  ended_at_ms: number;  // 0 while not ended
}

export interface ExperimentDetail extends ExperimentSummary {
  description: string;
  config: string;
  trials: TrialSummary[];
}

export type ExperimentAction = "pause" | "activate" | "kill" | "archive" | "unarchive";

export interface TrialCurve {
  trial_id: number;
  hparams: HParams;
  state: string;
  points: [number, number][];
}

export interface ExperimentMetrics {
  metric: string;
  kind: MetricKind;
  names: string[];
  trials: TrialCurve[];
}

export interface MetricReport {
  kind: MetricKind;
  batches: number;
  reported_at_ms: number;
  metrics: Record<string, number | null>;
}

export interface TrialMetrics {
  names: string[];
  points: MetricReport[];
  total: number;
  downsampled: boolean;
}

export interface LogEntry {
  seq: number;
  time_ms: number;
  stream: "stdout" | "stderr" | "system";
  text: string;
}

export interface LogPage {
  lines: LogEntry[];
  next_seq: number;
}

export interface Checkpoint {
  uuid: string;
  experiment_id: number;
  trial_id: number;
  batches: number;
  state: "ACTIVE" | "DELETED";
  total_bytes: number;
  created_at_ms: number;
  metrics: Record<string, number | null>;
  path: string;
}

export interface Slot {
  type: "CPU" | "GPU";
  device_uuid: string;
  model: string;
  memory_bytes: number;
}

export interface Agent {
  agent_id: string;
  hostname: string;
  slots: Slot[];
  slot_trials: number[];
  pool: string;
  labels: Record<string, string>;
  work_disk_free_bytes: number;  // free space of its work folder's file system, as it last reported
  work_disk_refusal: string;     // why it starts no trial now (its work disk is short of space); empty: it does
  container_runtime: string;     // what it runs environment.image with (podman, docker); empty: it runs no images
}

export interface ConfigError {
  line: number;
  column: number;
  field: string;
  message: string;
  text: string;
}

/** What a search would do, simulated with a made-up metric (`volador preview-search --json`). */
export interface SearchPreview {
  searcher: string;
  experiment_seed: number;
  max_length_batches: number;
  trials: number;
  by_length: { batches: number; trials: number; stopped_early: boolean }[];
  total_batches: number;
  max_concurrent_trials: number;
  brackets: { trials: number; rungs: number }[];
  validations: number[];  // the lengths a trial validates at
  not_simulated: string[];  // config keys the simulation ignored, e.g. searcher.goal
}

/** The project of a new experiment: one archive, or a folder's files with their relative paths. */
export type ProjectUpload =
  | { kind: "archive"; file: File }
  | { kind: "folder"; files: { path: string; blob: Blob }[] };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

export const API_BASE = "/api/v1";

let onUnauthorized: () => void = () => {};

/** Called whenever a request other than login is refused with 401 (the session ended). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

async function toApiError(response: Response): Promise<ApiError> {
  try {
    const body = await response.json();
    const e = body?.error ?? {};
    return new ApiError(response.status, e.code ?? "error", e.message ?? response.statusText,
                        Array.isArray(e.details) ? e.details : []);
  } catch {
    return new ApiError(response.status, "error", `${response.status} ${response.statusText}`);
  }
}

async function request<T>(method: string, path: string, body?: unknown, isLogin = false): Promise<T> {
  const init: RequestInit = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["Content-Type"] = "application/json";
  }
  const response = await fetch(API_BASE + path, init);
  if (!response.ok) {
    if (response.status === 401 && !isLogin) onUnauthorized();
    throw await toApiError(response);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as T;
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? "?" + text : "";
}

export const api = {
  login: (username: string, password: string) =>
    request<LoginResult>("POST", "/auth/login", { username, password }, true),
  logout: () => request<void>("POST", "/auth/logout"),
  me: () => request<User>("GET", "/me"),

  experiments: (q: ExperimentQuery) => request<ExperimentList>("GET", "/experiments" + query({ ...q })),
  experiment: (id: number) => request<ExperimentDetail>("GET", `/experiments/${id}`),
  experimentAction: (id: number, action: ExperimentAction) =>
    request<object>("POST", `/experiments/${id}/${action}`),
  experimentMetrics: (id: number, kind: MetricKind, metric: string, maxPoints: number) =>
    request<ExperimentMetrics>("GET", `/experiments/${id}/metrics` + query({ kind, metric, max_points: maxPoints })),
  experimentCheckpoints: (id: number) =>
    request<{ checkpoints: Checkpoint[] }>("GET", `/experiments/${id}/checkpoints`),
  createExperiment: (configText: string, configFileName: string, project: ProjectUpload) => {
    const form = new FormData();
    form.append("config", new Blob([configText], { type: "application/yaml" }), configFileName);
    if (project.kind === "archive") {
      form.append("project", project.file, project.file.name);
    } else {
      for (const file of project.files) form.append("files", file.blob, file.path);
    }
    return request<{ id: number }>("POST", "/experiments", form);
  },

  trial: (id: number) => request<TrialSummary>("GET", `/trials/${id}`),
  trialMetrics: (id: number, maxPoints: number) =>
    request<TrialMetrics>("GET", `/trials/${id}/metrics` + query({ max_points: maxPoints })),
  trialLogs: (id: number, afterSeq: number, limit: number, q: string) =>
    request<LogPage>("GET", `/trials/${id}/logs` + query({ after_seq: afterSeq, limit, q })),
  trialLogStreamUrl: (id: number, afterSeq: number) =>
    `${API_BASE}/trials/${id}/logs/stream` + query({ after_seq: afterSeq }),
  killTrial: (id: number) => request<object>("POST", `/trials/${id}/kill`),
  trialCheckpoints: (id: number) => request<{ checkpoints: Checkpoint[] }>("GET", `/trials/${id}/checkpoints`),
  checkpointDownloadUrl: (uuid: string) => `${API_BASE}/checkpoints/${encodeURIComponent(uuid)}/download`,

  agents: () => request<{ agents: Agent[] }>("GET", "/agents"),
  validateConfig: (config: string, fileName: string) =>
    request<{ errors: ConfigError[] }>("POST", "/config/validate", { config, file_name: fileName }),
  users: () => request<{ users: User[] }>("GET", "/users"),
  createUser: (username: string, password: string, admin: boolean) =>
    request<User>("POST", "/users", { username, password, admin }),
  previewSearch: (config: string) => request<SearchPreview>("POST", "/preview", { config }),
};
