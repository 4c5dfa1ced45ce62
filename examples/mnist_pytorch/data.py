"""The data source of the MNIST example: scikit-learn's bundled handwritten digits.

Same interface as the manual's data module (download_dataset, get_dataset), but
nothing is downloaded: sklearn.datasets.load_digits() ships with scikit-learn.
Its 1,797 8x8 images (16 grey levels) are scaled to [0, 1], upsampled
bilinearly to MNIST's 28x28 and normalized with MNIST's mean and standard
deviation, so the manual's model runs unchanged. A fixed stratified split
keeps 1,437 images for training and 360 for validation.
"""

import functools
from typing import Any, Dict, Tuple

import torch
from torch.utils.data import TensorDataset

VALIDATION_IMAGES = 360
SPLIT_SEED = 0
MNIST_MEAN, MNIST_STD = 0.1307, 0.3081


def download_dataset(download_directory: str, data_config: Dict[str, Any]) -> str:
    """Nothing to download: the digits come with scikit-learn. Returns `download_directory`."""
    return download_directory


def get_dataset(data_dir: str, train: bool) -> TensorDataset:
    """The training or validation split as (1x28x28 float image, int64 label) records."""
    train_split, validation_split = _splits()
    return TensorDataset(*(train_split if train else validation_split))


@functools.lru_cache(maxsize=1)
def _splits() -> Tuple[Tuple[torch.Tensor, torch.Tensor], Tuple[torch.Tensor, torch.Tensor]]:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16.0
    images = torch.nn.functional.interpolate(images, size=(28, 28), mode="bilinear", align_corners=False)
    images = (images - MNIST_MEAN) / MNIST_STD
    labels = torch.tensor(digits.target, dtype=torch.int64)
    train_index, validation_index = train_test_split(
        range(len(labels)), test_size=VALIDATION_IMAGES, random_state=SPLIT_SEED, stratify=digits.target)
    train_index, validation_index = torch.tensor(train_index), torch.tensor(validation_index)
    return (images[train_index], labels[train_index]), (images[validation_index], labels[validation_index])
