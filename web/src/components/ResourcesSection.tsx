// resources (slots per trial, shared memory, pool) and bind_mounts.
import { replaceRow, type BindMountRow, type SectionProps } from "../config_form";
import { CheckField } from "./CheckField";
import { TextField } from "./TextField";

export function ResourcesSection({ form, update }: SectionProps) {
  const mounts = form.bind_mounts;
  const setMount = (index: number, patch: Partial<BindMountRow>) =>
    update({ bind_mounts: replaceRow(mounts, index, { ...mounts[index], ...patch }) });
  return (
    <fieldset class="form-section">
      <legend>Resources</legend>
      <TextField label="Slots per trial" path="resources.slots_per_trial" value={form.slots_per_trial}
                 onChange={(slots_per_trial) => update({ slots_per_trial })} hint="default 1; data-parallel ranks" />
      <TextField label="Shared memory" path="resources.shm_size" value={form.shm_size}
                 onChange={(shm_size) => update({ shm_size })} placeholder="4G" hint="bytes or 128M, 1.5G; default 4 GiB" />
      <TextField label="Resource pool" path="resources.resource_pool" value={form.resource_pool}
                 onChange={(resource_pool) => update({ resource_pool })} />
      <div class="subsection wide">
        <h4>Bind mounts</h4>
        {mounts.map((mount, index) => (
          <div class="row-editor mount-row">
            <TextField label="Host path" path={`bind_mounts[${index}].host_path`} value={mount.host_path}
                       onChange={(host_path) => setMount(index, { host_path })} placeholder="/data/mnist" />
            <TextField label="Container path" path={`bind_mounts[${index}].container_path`} value={mount.container_path}
                       onChange={(container_path) => setMount(index, { container_path })} placeholder="/mnt/mnist" />
            <CheckField label="Read only" path={`bind_mounts[${index}].read_only`} checked={mount.read_only}
                        onChange={(read_only) => setMount(index, { read_only })} />
            <button type="button" class="remove" onClick={() => update({ bind_mounts: mounts.filter((_, i) => i !== index) })}>
              remove
            </button>
          </div>
        ))}
        <button type="button" onClick={() => update({ bind_mounts: [...mounts, { host_path: "", container_path: "", read_only: true }] })}>
          add bind mount
        </button>
      </div>
    </fieldset>
  );
}
