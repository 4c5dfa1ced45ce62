"""A plain training script, unchanged for Volador: a one-hidden-layer MLP in
numpy on scikit-learn's bundled 8x8 digits (no download).

Hyperparameters arrive as ``--name=value`` arguments (Volador appends one per
hyperparameter after the entrypoint's own arguments); metrics leave as
Katib-style ``name=value`` lines on stdout, one per epoch::

    epoch=3 accuracy=0.91 loss=0.3

Run it by hand with ``/usr/bin/python3 train.py --epochs 5 --lr=0.1``.
"""

import argparse

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--global_batch_size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    # Hyperparameters this script does not use are ignored.
    args, _unknown = parser.parse_known_args()
    return args


def main():
    args = parse_args()
    rng = np.random.default_rng(args.seed)
    digits = load_digits()
    x = digits.data.astype(np.float64) / 16.0
    y = digits.target
    x_train, x_val, y_train, y_val = train_test_split(x, y, test_size=0.25, random_state=0, stratify=y)

    w1 = rng.normal(0, np.sqrt(2.0 / x.shape[1]), (x.shape[1], args.hidden))
    b1 = np.zeros(args.hidden)
    w2 = rng.normal(0, np.sqrt(1.0 / args.hidden), (args.hidden, 10))
    b2 = np.zeros(10)

    def forward(batch):
        hidden = np.maximum(batch @ w1 + b1, 0)
        logits = hidden @ w2 + b2
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        return hidden, probs

    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(x_train))
        losses = []
        for start in range(0, len(order), args.global_batch_size):
            idx = order[start:start + args.global_batch_size]
            batch, labels = x_train[idx], y_train[idx]
            hidden, probs = forward(batch)
            losses.append(-np.log(probs[np.arange(len(idx)), labels] + 1e-12).mean())
            grad_logits = probs
            grad_logits[np.arange(len(idx)), labels] -= 1
            grad_logits /= len(idx)
            grad_hidden = (grad_logits @ w2.T) * (hidden > 0)
            w2 -= args.lr * hidden.T @ grad_logits
            b2 -= args.lr * grad_logits.sum(axis=0)
            w1 -= args.lr * batch.T @ grad_hidden
            b1 -= args.lr * grad_hidden.sum(axis=0)
        _, val_probs = forward(x_val)
        accuracy = float((val_probs.argmax(axis=1) == y_val).mean())
        print(f"epoch={epoch} accuracy={accuracy:.4f} loss={np.mean(losses):.4f}", flush=True)


if __name__ == "__main__":
    main()
