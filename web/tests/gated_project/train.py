"""The browser test's training script (stdlib only): prints Katib-style
metric lines, one every 0.1 s, until the file named by VOLADOR_TEST_GATE
exists (exported by the startup-hook.sh that the UI generates), so the test
decides when the trial may finish and can pause and activate it meanwhile.
Hyperparameters arrive as --lr=... and --width=... arguments.
"""

import argparse
import math
import os
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--width", type=int, default=8)
    args, _unknown = parser.parse_known_args()
    gate = os.environ["VOLADOR_TEST_GATE"]
    step = 0
    while True:
        step += 1
        loss = math.exp(-args.lr * step) + 1.0 / args.width
        print(f"step={step} loss={loss:.6f} accuracy={1.0 - loss / 2:.6f}", flush=True)
        if step >= 5 and os.path.exists(gate):
            break
        time.sleep(0.1)
    print("gate open: done", flush=True)


if __name__ == "__main__":
    main()
