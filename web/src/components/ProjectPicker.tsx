// Picks the project to upload: a folder or a .zip / .tar.gz archive.
import type { ProjectUpload } from "../api";
import { describeUpload, folderUpload } from "../project_upload";

interface Props {
  value: ProjectUpload | null;
  onChange: (upload: ProjectUpload | null) => void;
}

export function ProjectPicker({ value, onChange }: Props) {
  const pickFolder = (input: HTMLInputElement) => {
    const files = Array.from(input.files ?? []);
    onChange(files.length ? folderUpload(files) : null);
  };
  const pickArchive = (input: HTMLInputElement) => {
    const file = input.files?.[0];
    onChange(file ? { kind: "archive", file } : null);
  };
  return (
    <fieldset class="form-section project-picker">
      <legend>Project</legend>
      <div class="field">
        <label>Project folder</label>
        <input type="file" name="project-folder" {...{ webkitdirectory: true, directory: "" }} multiple
               onChange={(e) => pickFolder(e.currentTarget)} />
      </div>
      <div class="field">
        <label>or an archive</label>
        <input type="file" name="project-archive" accept=".zip,.tar.gz,.tgz,application/zip,application/gzip"
               onChange={(e) => pickArchive(e.currentTarget)} />
      </div>
      <p class="project-summary wide">
        {value ? `Uploading ${describeUpload(value)}.` : "No project chosen yet."}
        {value?.kind === "archive" && " The generated startup-hook.sh is not added to an archive: download it and pack it in."}
      </p>
    </fieldset>
  );
}
