// The UI's pure logic: the YAML writer, the generator's form model, error
// placement, the startup hook, smoothing and routes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { configYaml, emptyHParam, initialConfigForm, scalarOf } from "../../src/config_form";
import { assignErrors, GENERAL, inputName } from "../../src/field_errors";
import { flattenHParams, hparamColumns } from "../../src/hparams";
import { CHART_POINT_BUDGET, MAX_POINTS_PER_TRIAL, MIN_POINTS_PER_TRIAL, pointsPerTrial } from "../../src/point_budget";
import { parseRoute } from "../../src/router";
import { smooth } from "../../src/smoothing";
import { shellQuote, startupHookScript } from "../../src/startup_hook";
import { toYaml } from "../../src/yaml";

test("toYaml writes nested maps and lists in block style", () => {
  assert.equal(toYaml({ a: 1, b: { c: [1, "x"], d: [] }, e: [{ f: true, g: null }] }),
               "a: 1\nb:\n  c:\n    - 1\n    - x\n  d: []\ne:\n  - f: true\n    g: null\n");
});

test("toYaml quotes strings YAML would read as something else", () => {
  assert.equal(toYaml({ a: "yes", b: "1.5", c: "k: v", d: "", e: "#x", f: "python3 train.py --epochs 3" }),
               'a: "yes"\nb: "1.5"\nc: "k: v"\nd: ""\ne: "#x"\nf: python3 train.py --epochs 3\n');
});

test("scalarOf reads numbers and booleans and keeps other text", () => {
  assert.equal(scalarOf(" 42 "), 42);
  assert.equal(scalarOf("-1.5e-3"), -0.0015);
  assert.equal(scalarOf("true"), true);
  assert.equal(scalarOf("many"), "many");
  assert.equal(scalarOf("128M"), "128M");
});

test("the form's YAML leaves empty fields out and nests dotted hyperparameter names", () => {
  const form = initialConfigForm();
  form.name = "digits";
  form.entrypoint = "python3 train.py";
  form.hyperparameters = [
    { ...emptyHParam("log"), name: "optimizer.lr", base: "10", minval: "-3", maxval: "-1" },
    { ...emptyHParam("categorical"), name: "act", vals: "relu, tanh, 3" },
  ];
  form.searcher = { ...form.searcher, name: "random", metric: "accuracy", smaller_is_better: false,
                    max_length: { unit: "epochs", value: "2" }, max_trials: "8", mode: "aggressive" };
  form.records_per_epoch = "1000";
  form.environment_variables = [{ name: "A", value: "b c" }, { name: " ", value: "ignored" }];
  assert.equal(configYaml(form), [
    "name: digits",
    "entrypoint: python3 train.py",
    "hyperparameters:",
    "  global_batch_size: 32",
    "  optimizer:",
    "    lr:",
    "      type: log",
    "      base: 10",
    "      minval: -3",
    "      maxval: -1",
    "  act:",
    "    type: categorical",
    "    vals:",
    "      - relu",
    "      - tanh",
    "      - 3",
    "searcher:",
    "  name: random",
    "  metric: accuracy",
    "  smaller_is_better: false",
    "  max_length:",
    "    epochs: 2",
    "  max_trials: 8",
    "records_per_epoch: 1000",
    "environment:",
    "  environment_variables:",
    "    - A=b c",
    "",
  ].join("\n"));
});

test("a pbt searcher writes its rounds and nested functions, and no max_length", () => {
  const form = initialConfigForm();
  form.searcher = { ...form.searcher, name: "pbt", metric: "loss", max_length: { unit: "batches", value: "99" },
                    population_size: "8", num_rounds: "5", length_per_round: { unit: "batches", value: "200" },
                    truncate_fraction: "0.25", resample_probability: "0.2", perturb_factor: "0.2", max_trials: "7" };
  const yaml = configYaml(form);
  assert.ok(yaml.includes([
    "searcher:",
    "  name: pbt",
    "  metric: loss",
    "  smaller_is_better: true",
    "  population_size: 8",
    "  num_rounds: 5",
    "  length_per_round:",
    "    batches: 200",
    "  replace_function:",
    "    truncate_fraction: 0.25",
    "  explore_function:",
    "    resample_probability: 0.2",
    "    perturb_factor: 0.2",
  ].join("\n") + "\n"), yaml);
  assert.ok(!yaml.includes("max_length") && !yaml.includes("max_trials"), yaml);
});

test("errors go to their field, else the nearest enclosing one, else the general list", () => {
  const error = (field: string) => ({ line: 1, column: 1, field, message: "m", text: "t" });
  const paths = ["searcher.max_trials", "hyperparameters.lr", "hyperparameters.lr.minval", "bind_mounts[0].host_path"];
  const placed = assignErrors([error("searcher.max_trials"), error("hyperparameters.lr.maxval"),
                               error("hyperparameters.lr.minval"), error("bind_mounts[0]"), error("")], paths);
  assert.equal(placed.get("searcher.max_trials")?.length, 1);
  assert.deepEqual(placed.get("hyperparameters.lr")?.map((e) => e.field), ["hyperparameters.lr.maxval"]);
  assert.equal(placed.get("hyperparameters.lr.minval")?.length, 1);
  assert.deepEqual(placed.get(GENERAL)?.map((e) => e.field), ["bind_mounts[0]", ""]);
  assert.equal(inputName("bind_mounts[0].host_path"), "bind_mounts-0-host_path");
});

test("the startup hook exports quoted values before the user's commands", () => {
  assert.equal(shellQuote("it's"), "'it'\\''s'");
  const script = startupHookScript({ exports: [{ name: "DATA", value: "/mnt/a b" }], commands: "echo hi\n\n" });
  assert.ok(script.startsWith("#!/bin/sh\n"));
  assert.ok(script.endsWith("export DATA='/mnt/a b'\n\necho hi\n"));
});

test("smoothing is the identity at 0, debiased and keeps gaps", () => {
  assert.deepEqual(smooth([1, 2, null, 3], 0), [1, 2, null, 3]);
  const smoothed = smooth([2, null, 4], 0.5);
  assert.equal(smoothed[0], 2);
  assert.equal(smoothed[1], null);
  assert.ok((smoothed[2] as number) > 2 && (smoothed[2] as number) < 4);
});

test("hyperparameters flatten to dotted columns, numeric or categorical", () => {
  const rows = [flattenHParams({ opt: { lr: 0.1, name: "adam" }, bs: 32 }), flattenHParams({ opt: { lr: 0.2, name: "sgd" }, bs: 32 })];
  const columns = hparamColumns(rows);
  assert.deepEqual(columns.map((c) => [c.name, c.numeric, c.constant]),
                   [["bs", true, true], ["opt.lr", true, false], ["opt.name", false, false]]);
});

test("routes", () => {
  assert.deepEqual(parseRoute(""), { page: "experiments" });
  assert.deepEqual(parseRoute("#/experiments/12"), { page: "experiment", id: 12 });
  assert.deepEqual(parseRoute("#/experiments/new"), { page: "new-experiment" });
  assert.deepEqual(parseRoute("#/trials/3/"), { page: "trial", id: 3 });
  assert.equal(parseRoute("#/trials/x").page, "not-found");
});

test("the chart's point budget is shared out between trials within bounds", () => {
  assert.equal(pointsPerTrial(0), MAX_POINTS_PER_TRIAL);
  assert.equal(pointsPerTrial(6), MAX_POINTS_PER_TRIAL);
  assert.equal(pointsPerTrial(1000), CHART_POINT_BUDGET / 1000);
  assert.ok(pointsPerTrial(1000) * 1000 <= CHART_POINT_BUDGET);
  assert.equal(pointsPerTrial(1_000_000), MIN_POINTS_PER_TRIAL);
});
