// checkpoint_storage: left out for the cluster's default, or a storage type
// with its fields and the save_* counts that drive checkpoint deletion.
import { STORAGE_KEYS, type SectionProps, type StorageForm, type StorageType } from "../config_form";
import { CheckField } from "./CheckField";
import { SelectField } from "./SelectField";
import { TextField } from "./TextField";

const TYPES: StorageType[] = ["shared_fs", "s3", "gcs", "azure"];
const COUNTS = ["save_experiment_best", "save_trial_best", "save_trial_latest"] as const;

export function StorageSection({ form, update }: SectionProps) {
  const storage = form.checkpoint_storage;
  const set = (patch: Partial<StorageForm>) => update({ checkpoint_storage: { ...storage, ...patch } });
  return (
    <fieldset class="form-section">
      <legend>Checkpoint storage</legend>
      <CheckField label="Set checkpoint storage" path="checkpoint_storage" checked={storage.enabled}
                  onChange={(enabled) => set({ enabled })} hint="off: the cluster's default storage" />
      {storage.enabled && (
        <>
          <SelectField label="Type" path="checkpoint_storage.type" value={storage.type}
                       options={TYPES.map((t) => ({ value: t, label: t }))} onChange={(type) => set({ type })} />
          {STORAGE_KEYS[storage.type].map((key) => (
            <TextField label={key} path={`checkpoint_storage.${key}`} value={storage[key] as string}
                       type={key.includes("secret") || key === "credential" ? "password" : "text"}
                       onChange={(value) => set({ [key]: value })} />
          ))}
          {COUNTS.map((key) => (
            <TextField label={key} path={`checkpoint_storage.${key}`} value={storage[key]}
                       onChange={(value) => set({ [key]: value })} />
          ))}
        </>
      )}
    </fieldset>
  );
}
