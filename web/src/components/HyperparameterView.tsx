// The experiment's hyperparameter view: parallel coordinates and the metric
// against a chosen hyperparameter, over the trials' best validation metric.
import type { ExperimentDetail } from "../api";
import { hparamColumns } from "../hparams";
import { trialPoints } from "../trial_points";
import { HParamScatter } from "./HParamScatter";
import { ParallelCoordinates } from "./ParallelCoordinates";

export function HyperparameterView({ experiment }: { experiment: ExperimentDetail }) {
  const points = trialPoints(experiment.trials);
  const columns = hparamColumns(points.map((p) => p.hparams));
  const common = { points, columns, metric: experiment.metric, smallerIsBetter: experiment.smaller_is_better };
  return (
    <section class="panel hyperparameters">
      <h2>Hyperparameters</h2>
      {points.length === 0 ? <p class="empty">No trials yet.</p> : (
        <div class="two-columns">
          <div><h3>Parallel coordinates</h3><ParallelCoordinates {...common} /></div>
          <div><h3>{experiment.metric} against a hyperparameter</h3><HParamScatter {...common} /></div>
        </div>
      )}
    </section>
  );
}
