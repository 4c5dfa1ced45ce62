// The searcher: its name, metric and length, and the fields the chosen
// searcher takes (budget, concurrency, ASHA's and the model-based searchers'
// settings, goal, failure limit, median early stopping, pbt's population and rounds).
import { SEARCHER_KEYS, SEARCHERS, takesMaxLength, type SearcherForm, type SectionProps } from "../config_form";
import { CheckField } from "./CheckField";
import { LengthField } from "./LengthField";
import { SelectField } from "./SelectField";
import { TextField } from "./TextField";

type TextKey = Exclude<keyof SearcherForm,
                       "name" | "smaller_is_better" | "max_length" | "early_stopping" | "length_per_round">;

const TEXT_FIELDS: { key: TextKey; label: string; hint?: string }[] = [
  { key: "max_trials", label: "Max trials" },
  { key: "max_concurrent_trials", label: "Max concurrent trials", hint: "default 16; 0 = as many as fit" },
  { key: "mode", label: "Mode", hint: "aggressive | standard | conservative" },
  { key: "divisor", label: "Divisor", hint: "default 4" },
  { key: "max_rungs", label: "Max rungs", hint: "default 5" },
  { key: "n_startup_trials", label: "Startup trials", hint: "default 10" },
  { key: "gamma", label: "Gamma", hint: "default 0.1" },
  { key: "n_ei_candidates", label: "EI candidates", hint: "default 24" },
  { key: "prior_weight", label: "Prior weight", hint: "default 1.0" },
  { key: "multivariate", label: "Multivariate", hint: "true | false (default): one joint density" },
  { key: "bandwidth_factor", label: "Bandwidth factor", hint: "in (0, 1], default 1" },
  { key: "n_initial_points", label: "Initial points", hint: "default 10" },
  { key: "xi", label: "xi", hint: "default 1e-4" },
  { key: "n_candidates", label: "Candidates", hint: "default 1000" },
  { key: "goal", label: "Goal", hint: "stop when the metric reaches this" },
  { key: "max_failed_trials", label: "Max failed trials" },
  { key: "population_size", label: "Population size" },
  { key: "num_rounds", label: "Rounds" },
  { key: "truncate_fraction", label: "Truncate fraction", hint: "replace_function: the worst share replaced each round" },
  { key: "resample_probability", label: "Resample probability", hint: "explore_function" },
  { key: "perturb_factor", label: "Perturb factor", hint: "explore_function" },
];

// Where a text field's errors are reported: pbt's functions are nested maps.
function fieldPath(key: TextKey): string {
  if (key === "truncate_fraction") return "searcher.replace_function.truncate_fraction";
  if (key === "resample_probability" || key === "perturb_factor") return `searcher.explore_function.${key}`;
  return `searcher.${key}`;
}

export function SearcherSection({ form, update }: SectionProps) {
  const searcher = form.searcher;
  const set = (patch: Partial<SearcherForm>) => update({ searcher: { ...searcher, ...patch } });
  const takes = new Set(SEARCHER_KEYS[searcher.name]);
  return (
    <fieldset class="form-section">
      <legend>Searcher</legend>
      <SelectField label="Searcher" path="searcher.name" value={searcher.name}
                   options={SEARCHERS.map((s) => ({ value: s, label: s }))} onChange={(name) => set({ name })} />
      <TextField label="Metric" path="searcher.metric" value={searcher.metric} onChange={(metric) => set({ metric })}
                 placeholder="validation_loss" />
      <CheckField label="Smaller is better" path="searcher.smaller_is_better" checked={searcher.smaller_is_better}
                  onChange={(smaller_is_better) => set({ smaller_is_better })} />
      {takesMaxLength(searcher.name) && (
        <LengthField label="Max length" path="searcher.max_length" value={searcher.max_length}
                     onChange={(max_length) => set({ max_length })} />
      )}
      {takes.has("length_per_round") && (
        <LengthField label="Length per round" path="searcher.length_per_round" value={searcher.length_per_round}
                     onChange={(length_per_round) => set({ length_per_round })} />
      )}
      {TEXT_FIELDS.filter((f) => takes.has(f.key)).map((f) => (
        <TextField label={f.label} path={fieldPath(f.key)} value={searcher[f.key]} hint={f.hint}
                   onChange={(value) => set({ [f.key]: value })} />
      ))}
      {takes.has("early_stopping") && (
        <>
          <CheckField label="Median early stopping" path="searcher.early_stopping" checked={searcher.early_stopping}
                      onChange={(early_stopping) => set({ early_stopping })} />
          {searcher.early_stopping && (["min_trials", "start_step", "num_steps"] as const).map((key) => (
            <TextField label={key} path={`searcher.early_stopping.${key}`} value={searcher[key]}
                       onChange={(value) => set({ [key]: value })} />
          ))}
        </>
      )}
    </fieldset>
  );
}
