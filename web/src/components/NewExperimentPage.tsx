// A new experiment: the distributed.yaml generator (validated live by the
// master with the rules of create, errors beside their fields), the
// startup-hook.sh generator and the project upload; submitting opens the
// experiment's page.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";

import { api, type ConfigError, type ProjectUpload } from "../api";
import { configYaml, initialConfigForm, parseData, type ConfigForm } from "../config_form";
import { downloadText } from "../download_text";
import { assignErrors, FieldErrorsContext, GENERAL } from "../field_errors";
import { withStartupHook } from "../project_upload";
import { href, navigate } from "../router";
import { initialStartupHook, isEmptyStartupHook, startupHookScript } from "../startup_hook";
import { EnvironmentSection } from "./EnvironmentSection";
import { ErrorMessage } from "./ErrorMessage";
import { HyperparameterEditor } from "./HyperparameterEditor";
import { IdentitySection } from "./IdentitySection";
import { ProjectPicker } from "./ProjectPicker";
import { ResourcesSection } from "./ResourcesSection";
import { SearcherSection } from "./SearcherSection";
import { SearchPreviewPanel } from "./SearchPreviewPanel";
import { StartupHookEditor } from "./StartupHookEditor";
import { StorageSection } from "./StorageSection";
import { TrainingSection } from "./TrainingSection";
import { YamlPreview } from "./YamlPreview";

const CONFIG_FILE = "distributed.yaml";
const VALIDATE_DELAY_MS = 300;

/** The master's verdict on `yaml`, asked for once the text has been still for a moment. */
function useValidation(yaml: string, localErrors: ConfigError[]) {
  const [errors, setErrors] = useState<ConfigError[]>([]);
  const [validating, setValidating] = useState(false);
  const [failure, setFailure] = useState<Error>();
  useEffect(() => {
    let current = true;
    setValidating(true);
    const timer = window.setTimeout(() => {
      api.validateConfig(yaml, CONFIG_FILE).then(
        (result) => { if (current) { setErrors(result.errors); setFailure(undefined); setValidating(false); } },
        (e: Error) => { if (current) { setFailure(e); setValidating(false); } });
    }, VALIDATE_DELAY_MS);
    return () => { current = false; window.clearTimeout(timer); };
  }, [yaml]);
  return { errors: [...localErrors, ...errors], validating, failure };
}

export function NewExperimentPage() {
  const [form, setForm] = useState<ConfigForm>(initialConfigForm);
  const [hook, setHook] = useState(initialStartupHook);
  const [project, setProject] = useState<ProjectUpload | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [submitError, setSubmitError] = useState<Error>();
  const [paths, setPaths] = useState<string[]>([]);
  const formRef = useRef<HTMLFormElement>(null);

  const yaml = useMemo(() => configYaml(form), [form]);
  const dataError = parseData(form.data).error;
  const localErrors = dataError ? [{ line: 0, column: 0, field: "data", message: dataError, text: dataError }] : [];
  const validation = useValidation(yaml, localErrors);
  const byField = useMemo(() => assignErrors(validation.errors, paths), [validation.errors, paths]);

  useLayoutEffect(() => {
    const rendered = Array.from(formRef.current!.querySelectorAll<HTMLElement>("[data-field]"), (el) => el.dataset.field!);
    if (rendered.join("\n") !== paths.join("\n")) setPaths(rendered);
  });

  const update = (patch: Partial<ConfigForm>) => setForm((old) => ({ ...old, ...patch }));
  const hookScript = startupHookScript(hook);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!project) { setSubmitError(new Error("Choose the project folder or archive to upload.")); return; }
    setSubmitting(true);
    setSubmitError(undefined);
    try {
      const upload = isEmptyStartupHook(hook) ? project : withStartupHook(project, hookScript);
      const created = await api.createExperiment(yaml, CONFIG_FILE, upload);
      navigate(href.experiment(created.id));
    } catch (err) {
      setSubmitError(err as Error);
    } finally {
      setSubmitting(false);
    }
  };

  const sections = { form, update };
  return (
    <div class="page new-experiment">
      <div class="page-title"><h1>New experiment</h1></div>
      <FieldErrorsContext.Provider value={byField}>
        <div class="generator">
          <form ref={formRef} class="config-form" onSubmit={submit}>
            <IdentitySection {...sections} />
            <HyperparameterEditor {...sections} />
            <SearcherSection {...sections} />
            <TrainingSection {...sections} />
            <ResourcesSection {...sections} />
            <StorageSection {...sections} />
            <EnvironmentSection {...sections} />
            <StartupHookEditor hook={hook} onChange={setHook} />
            <ProjectPicker value={project} onChange={setProject} />
            <div class="submit-bar">
              <button type="submit" class="primary submit" disabled={submitting}>
                {submitting ? "Submitting…" : "Submit experiment"}
              </button>
              <ErrorMessage error={submitError} />
            </div>
          </form>
          <aside class="generated">
            <div class="generated-title">
              <h2>{CONFIG_FILE}</h2>
              <button type="button" onClick={() => downloadText(CONFIG_FILE, yaml, "application/yaml")}>download</button>
              <button type="button" onClick={() => downloadText("startup-hook.sh", hookScript, "text/x-sh")}>
                download startup-hook.sh
              </button>
            </div>
            <ErrorMessage error={validation.failure} />
            <SearchPreviewPanel yaml={yaml} />
            <YamlPreview text={yaml} errors={validation.errors} general={byField.get(GENERAL) ?? []}
                         validating={validation.validating} />
          </aside>
        </div>
      </FieldErrorsContext.Provider>
    </div>
  );
}
