// The state of the distributed.yaml generator form (every field of the
// manual's reference) and the YAML document it stands for. Inputs are kept as
// typed text: an empty one leaves its key out (the manual's default applies),
// anything else is written as it reads, so the master's validation reports a
// bad value at its field.
import { toYaml, type YamlValue } from "./yaml";

export type LengthUnit = "batches" | "records" | "epochs";
export type HParamType = "const" | "int" | "double" | "log" | "categorical";
export type SearcherName = "single" | "grid" | "random" | "adaptive_asha" | "tpe" | "bayesian" | "pbt";
export type StorageType = "shared_fs" | "s3" | "gcs" | "azure";

export interface LengthField {
  unit: LengthUnit;
  value: string;
}

export interface HParamRow {
  name: string;  // dotted names nest: optimizer.lr
  type: HParamType;
  val: string;
  minval: string;
  maxval: string;
  base: string;
  count: string;
  vals: string;  // comma-separated
}

export interface BindMountRow {
  host_path: string;
  container_path: string;
  read_only: boolean;
}

export interface EnvVarRow {
  name: string;
  value: string;
}

export interface SearcherForm {
  name: SearcherName;
  metric: string;
  smaller_is_better: boolean;
  max_length: LengthField;
  max_trials: string;
  max_concurrent_trials: string;
  mode: string;
  divisor: string;
  max_rungs: string;
  goal: string;
  max_failed_trials: string;
  early_stopping: boolean;
  min_trials: string;
  start_step: string;
  num_steps: string;
  n_startup_trials: string;
  gamma: string;
  n_ei_candidates: string;
  prior_weight: string;
  multivariate: string;      // tpe's: "true" or "false" as typed
  bandwidth_factor: string;  // tpe's
  n_initial_points: string;
  xi: string;
  n_candidates: string;
  population_size: string;       // pbt's
  num_rounds: string;
  length_per_round: LengthField;
  truncate_fraction: string;     // pbt's replace_function
  resample_probability: string;  // pbt's explore_function
  perturb_factor: string;
}

export interface StorageForm {
  enabled: boolean;
  type: StorageType;
  host_path: string;
  storage_path: string;
  bucket: string;
  access_key: string;
  secret_key: string;
  prefix: string;
  endpoint_url: string;
  container: string;
  connection_string: string;
  account_url: string;
  credential: string;
  save_experiment_best: string;
  save_trial_best: string;
  save_trial_latest: string;
}

export interface ConfigForm {
  name: string;
  description: string;
  labels: string;  // comma-separated
  workspace: string;
  project: string;
  entrypoint: string;
  data: string;  // a JSON object, free-form
  global_batch_size: string;
  hyperparameters: HParamRow[];
  searcher: SearcherForm;
  metrics_collector_format: string;
  records_per_epoch: string;
  scheduling_unit: string;
  min_validation_period: LengthField;
  min_checkpoint_period: LengthField;
  checkpoint_policy: "" | "best" | "all" | "none";
  perform_initial_validation: boolean;
  max_restarts: string;
  experiment_seed: string;
  checkpoint_storage: StorageForm;
  slots_per_trial: string;
  shm_size: string;
  resource_pool: string;
  bind_mounts: BindMountRow[];
  image: string;
  force_pull_image: boolean;
  registry_username: string;
  registry_password: string;
  registry_serveraddress: string;
  environment_variables: EnvVarRow[];
}

export const SEARCHERS: SearcherName[] = ["single", "grid", "random", "adaptive_asha", "tpe", "bayesian", "pbt"];

/** The searcher keys beyond name/metric/smaller_is_better/max_length that each searcher takes. */
export const SEARCHER_KEYS: Record<SearcherName, (keyof SearcherForm)[]> = {
  single: [],
  grid: ["max_concurrent_trials", "goal", "max_failed_trials", "early_stopping"],
  random: ["max_trials", "max_concurrent_trials", "goal", "max_failed_trials", "early_stopping"],
  tpe: ["max_trials", "max_concurrent_trials", "goal", "max_failed_trials", "early_stopping",
        "n_startup_trials", "gamma", "n_ei_candidates", "prior_weight", "multivariate", "bandwidth_factor"],
  bayesian: ["max_trials", "max_concurrent_trials", "goal", "max_failed_trials", "early_stopping",
             "n_initial_points", "xi", "n_candidates"],
  adaptive_asha: ["max_trials", "max_concurrent_trials", "goal", "max_failed_trials",
                  "mode", "divisor", "max_rungs"],
  pbt: ["population_size", "num_rounds", "length_per_round", "truncate_fraction", "resample_probability",
        "perturb_factor"],
};

/** Whether a searcher takes max_length (pbt's trials train num_rounds × length_per_round instead). */
export function takesMaxLength(name: SearcherName): boolean {
  return name !== "pbt";
}

/** The fields a storage type takes besides type and the save_* counts. */
export const STORAGE_KEYS: Record<StorageType, (keyof StorageForm)[]> = {
  shared_fs: ["host_path", "storage_path"],
  s3: ["bucket", "access_key", "secret_key", "prefix", "endpoint_url"],
  gcs: ["bucket", "prefix"],
  azure: ["container", "connection_string", "account_url", "credential"],
};

export function emptyLength(unit: LengthUnit = "batches"): LengthField {
  return { unit, value: "" };
}

export function emptyHParam(type: HParamType = "double"): HParamRow {
  return { name: "", type, val: "", minval: "", maxval: "", base: "", count: "", vals: "" };
}

export function initialConfigForm(): ConfigForm {
  const blankSearcherFields = {
    max_trials: "", max_concurrent_trials: "", mode: "", divisor: "", max_rungs: "", goal: "",
    max_failed_trials: "", early_stopping: false, min_trials: "", start_step: "", num_steps: "",
    n_startup_trials: "", gamma: "", n_ei_candidates: "", prior_weight: "", multivariate: "", bandwidth_factor: "", n_initial_points: "", xi: "",
    n_candidates: "", population_size: "", num_rounds: "", length_per_round: emptyLength(), truncate_fraction: "",
    resample_probability: "", perturb_factor: "",
  };
  return {
    name: "", description: "", labels: "", workspace: "", project: "", entrypoint: "", data: "",
    global_batch_size: "32",
    hyperparameters: [],
    searcher: { name: "single", metric: "", smaller_is_better: true, max_length: emptyLength(),
                ...blankSearcherFields },
    metrics_collector_format: "", records_per_epoch: "", scheduling_unit: "",
    min_validation_period: emptyLength(), min_checkpoint_period: emptyLength(),
    checkpoint_policy: "", perform_initial_validation: false, max_restarts: "", experiment_seed: "",
    checkpoint_storage: {
      enabled: false, type: "shared_fs", host_path: "", storage_path: "", bucket: "", access_key: "",
      secret_key: "", prefix: "", endpoint_url: "", container: "", connection_string: "", account_url: "",
      credential: "", save_experiment_best: "", save_trial_best: "", save_trial_latest: "",
    },
    slots_per_trial: "", shm_size: "", resource_pool: "", bind_mounts: [],
    image: "", force_pull_image: false, registry_username: "", registry_password: "",
    registry_serveraddress: "", environment_variables: [],
  };
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A typed input's value: a number when it reads as one, else the text as typed. */
export function scalarOf(text: string): string | number | boolean {
  const trimmed = text.trim();
  if (NUMBER.test(trimmed)) return Number(trimmed);
  if (trimmed === "true" || trimmed === "false") return trimmed === "true";
  return trimmed;
}

function put(target: { [key: string]: YamlValue }, key: string, text: string): void {
  if (text.trim() !== "") target[key] = scalarOf(text);
}

function putText(target: { [key: string]: YamlValue }, key: string, text: string): void {
  if (text.trim() !== "") target[key] = text.trim();
}

function length(field: LengthField): YamlValue {
  return { [field.unit]: scalarOf(field.value) };
}

function splitList(text: string): string[] {
  return text.split(",").map((item) => item.trim()).filter(Boolean);
}

function hparamValue(row: HParamRow): YamlValue {
  const entry: { [key: string]: YamlValue } = { type: row.type };
  if (row.type === "const") {
    put(entry, "val", row.val);
  } else if (row.type === "categorical") {
    entry.vals = splitList(row.vals).map(scalarOf);
  } else {
    if (row.type === "log") put(entry, "base", row.base);
    put(entry, "minval", row.minval);
    put(entry, "maxval", row.maxval);
    put(entry, "count", row.count);
  }
  return entry;
}

/** Sets `value` at a dotted path (optimizer.lr) inside `root`, making the maps on the way. */
function setPath(root: { [key: string]: YamlValue }, path: string, value: YamlValue): void {
  const keys = path.split(".").map((key) => key.trim());
  let node = root;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== "object" || Array.isArray(next)) node[key] = {};
    node = node[key] as { [key: string]: YamlValue };
  }
  node[keys[keys.length - 1]] = value;
}

function hyperparameters(form: ConfigForm): YamlValue {
  const out: { [key: string]: YamlValue } = {};
  put(out, "global_batch_size", form.global_batch_size);
  for (const row of form.hyperparameters) {
    if (row.name.trim() !== "") setPath(out, row.name.trim(), hparamValue(row));
  }
  return out;
}

function searcher(form: SearcherForm): YamlValue {
  const out: { [key: string]: YamlValue } = { name: form.name };
  putText(out, "metric", form.metric);
  out.smaller_is_better = form.smaller_is_better;
  if (takesMaxLength(form.name) && form.max_length.value.trim() !== "") out.max_length = length(form.max_length);
  for (const key of SEARCHER_KEYS[form.name]) {
    if (key === "length_per_round") {
      if (form.length_per_round.value.trim() !== "") out.length_per_round = length(form.length_per_round);
    } else if (key === "truncate_fraction") {
      const replace: { [key: string]: YamlValue } = {};
      put(replace, key, form.truncate_fraction);
      if (Object.keys(replace).length > 0) out.replace_function = replace;
    } else if (key === "resample_probability") {
      const explore: { [key: string]: YamlValue } = {};
      put(explore, "resample_probability", form.resample_probability);
      put(explore, "perturb_factor", form.perturb_factor);
      if (Object.keys(explore).length > 0) out.explore_function = explore;
    } else if (key === "perturb_factor") {
      continue;  // written with resample_probability, in explore_function
    } else if (key === "early_stopping") {
      if (!form.early_stopping) continue;
      const rule: { [key: string]: YamlValue } = { rule: "median" };
      put(rule, "min_trials", form.min_trials);
      put(rule, "start_step", form.start_step);
      put(rule, "num_steps", form.num_steps);
      out.early_stopping = rule;
    } else if (key === "mode") {
      putText(out, key, form.mode);
    } else {
      put(out, key, form[key] as string);
    }
  }
  return out;
}

function checkpointStorage(form: StorageForm): YamlValue {
  const out: { [key: string]: YamlValue } = { type: form.type };
  for (const key of STORAGE_KEYS[form.type]) putText(out, key, form[key] as string);
  put(out, "save_experiment_best", form.save_experiment_best);
  put(out, "save_trial_best", form.save_trial_best);
  put(out, "save_trial_latest", form.save_trial_latest);
  return out;
}

function environment(form: ConfigForm): YamlValue {
  const out: { [key: string]: YamlValue } = {};
  putText(out, "image", form.image);
  if (form.force_pull_image) out.force_pull_image = true;
  const auth: { [key: string]: YamlValue } = {};
  putText(auth, "username", form.registry_username);
  putText(auth, "password", form.registry_password);
  putText(auth, "serveraddress", form.registry_serveraddress);
  if (Object.keys(auth).length > 0) out.registry_auth = auth;
  const variables = form.environment_variables.filter((v) => v.name.trim() !== "");
  if (variables.length > 0) out.environment_variables = variables.map((v) => `${v.name.trim()}=${v.value}`);
  return out;
}

/** The data field's JSON object, or the error that keeps it out. */
export function parseData(text: string): { value?: YamlValue; error?: string } {
  if (text.trim() === "") return {};
  try {
    const value = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return { error: "expected a JSON object" };
    return { value };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The document the form stands for, keys in the manual's order. */
export function configValue(form: ConfigForm): { [key: string]: YamlValue } {
  const out: { [key: string]: YamlValue } = {};
  putText(out, "name", form.name);
  putText(out, "description", form.description);
  const labels = splitList(form.labels);
  if (labels.length > 0) out.labels = labels;
  putText(out, "workspace", form.workspace);
  putText(out, "project", form.project);
  putText(out, "entrypoint", form.entrypoint);
  const data = parseData(form.data).value;
  if (data !== undefined) out.data = data;
  out.hyperparameters = hyperparameters(form);
  out.searcher = searcher(form.searcher);
  if (form.metrics_collector_format.trim() !== "") out.metrics_collector = { format: form.metrics_collector_format };
  put(out, "records_per_epoch", form.records_per_epoch);
  put(out, "scheduling_unit", form.scheduling_unit);
  if (form.min_validation_period.value.trim() !== "") out.min_validation_period = length(form.min_validation_period);
  if (form.min_checkpoint_period.value.trim() !== "") out.min_checkpoint_period = length(form.min_checkpoint_period);
  if (form.checkpoint_policy !== "") out.checkpoint_policy = form.checkpoint_policy;
  if (form.perform_initial_validation) out.perform_initial_validation = true;
  put(out, "max_restarts", form.max_restarts);
  put(out, "experiment_seed", form.experiment_seed);
  if (form.checkpoint_storage.enabled) out.checkpoint_storage = checkpointStorage(form.checkpoint_storage);
  const resources: { [key: string]: YamlValue } = {};
  put(resources, "slots_per_trial", form.slots_per_trial);
  put(resources, "shm_size", form.shm_size);
  putText(resources, "resource_pool", form.resource_pool);
  if (Object.keys(resources).length > 0) out.resources = resources;
  const mounts = form.bind_mounts.filter((m) => m.host_path.trim() !== "" || m.container_path.trim() !== "");
  if (mounts.length > 0) {
    out.bind_mounts = mounts.map((m) => ({ host_path: m.host_path.trim(), container_path: m.container_path.trim(),
                                           read_only: m.read_only }));
  }
  const env = environment(form);
  if (Object.keys(env as object).length > 0) out.environment = env;
  return out;
}

export function configYaml(form: ConfigForm): string {
  return toYaml(configValue(form));
}

/** How a section of the form changes the form. */
export type FormUpdate = (patch: Partial<ConfigForm>) => void;

export interface SectionProps {
  form: ConfigForm;
  update: FormUpdate;
}

/** `rows` with row `index` replaced by `row` (the row editors' update). */
export function replaceRow<T>(rows: T[], index: number, row: T): T[] {
  return rows.map((old, i) => (i === index ? row : old));
}
