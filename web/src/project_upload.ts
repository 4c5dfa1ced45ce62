// The project a new experiment uploads: a folder picked with
// <input webkitdirectory> (each file sent with its path relative to the
// folder) or one .zip / .tar.gz archive.
import type { ProjectUpload } from "./api";

export const STARTUP_HOOK = "startup-hook.sh";

/** A picked folder's files, their paths without the folder's own name. */
export function folderUpload(files: File[]): ProjectUpload {
  return {
    kind: "folder",
    files: files.map((file) => {
      const relative = file.webkitRelativePath || file.name;
      return { path: relative.includes("/") ? relative.slice(relative.indexOf("/") + 1) : relative, blob: file };
    }),
  };
}

/** The folder upload with `script` as its startup-hook.sh (replacing the folder's own). */
export function withStartupHook(upload: ProjectUpload, script: string): ProjectUpload {
  if (upload.kind !== "folder") return upload;
  const files = upload.files.filter((f) => f.path !== STARTUP_HOOK);
  return { kind: "folder", files: [...files, { path: STARTUP_HOOK, blob: new Blob([script], { type: "text/x-sh" }) }] };
}

export function describeUpload(upload: ProjectUpload): string {
  if (upload.kind === "archive") return `${upload.file.name} (${upload.file.size} bytes)`;
  const bytes = upload.files.reduce((sum, f) => sum + f.blob.size, 0);
  return `${upload.files.length} files, ${bytes} bytes`;
}
