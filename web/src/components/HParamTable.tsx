// A trial's hyperparameters, nested ones flattened (optimizer.lr).
import type { HParams } from "../api";
import { formatValue } from "../format";
import { flattenHParams } from "../hparams";

export function HParamTable({ hparams }: { hparams: HParams }) {
  return (
    <section class="panel hparams">
      <h2>Hyperparameters</h2>
      <table class="table key-value">
        <tbody>
          {Object.entries(flattenHParams(hparams)).map(([name, value]) => (
            <tr><th>{name}</th><td class="mono">{formatValue(value)}</td></tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
