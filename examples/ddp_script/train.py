"""A torch.distributed (gloo) DistributedDataParallel script, as it would run
under torchrun: Volador starts one copy per slot with MASTER_ADDR,
MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE set (and the
TI-ONE names NODE_NUM, INDEX, GPU_NUM_PER_NODE, CHIEF_IP), so
``init_process_group("gloo")`` reads them from the environment.

Hyperparameters come from ``volador.reporting.get_parameter()``; rank 0
reports its validation accuracy per epoch, its training loss and the final
accuracy with the same module. The data is scikit-learn's bundled digits,
split across the ranks by DistributedSampler.
"""

import os

import torch
import torch.distributed as dist
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from volador.reporting import get_parameter, report_final_result, report_intermediate_result, report_loss


def datasets():
    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target, dtype=torch.long)
    x_train, x_val, y_train, y_val = train_test_split(x, y, test_size=0.25, random_state=0, stratify=y)
    return TensorDataset(x_train, y_train), TensorDataset(x_val, y_val)


def main():
    dist.init_process_group("gloo")  # env:// : MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
    rank, world = dist.get_rank(), dist.get_world_size()
    print(f"rank {rank} of {world} (local rank {os.environ.get('LOCAL_RANK')}, node {os.environ.get('INDEX')} "
          f"of {os.environ.get('NODE_NUM')}, chief {os.environ.get('CHIEF_IP')})", flush=True)
    torch.manual_seed(0)  # the same initial model on every rank (DDP broadcasts rank 0's anyway)
    lr = float(get_parameter("lr", 0.1))
    hidden = int(get_parameter("hidden", 64))
    epochs = int(get_parameter("epochs", 6))
    per_rank_batch = int(get_parameter("global_batch_size", 32)) // world

    train_set, val_set = datasets()
    sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(train_set, batch_size=per_rank_batch, sampler=sampler)
    model = DistributedDataParallel(nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10)))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    accuracy = 0.0
    for epoch in range(1, epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        total, batches = 0.0, 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()  # DDP averages the gradients over the ranks
            optimizer.step()
            total, batches = total + float(loss), batches + 1
        if rank == 0:
            model.eval()
            with torch.no_grad():
                x_val, y_val = val_set.tensors
                accuracy = float((model.module(x_val).argmax(dim=1) == y_val).float().mean())
            report_loss(total / max(batches, 1), step=epoch)
            report_intermediate_result(accuracy, step=epoch)
        dist.barrier()
    if rank == 0:
        report_final_result(accuracy)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
