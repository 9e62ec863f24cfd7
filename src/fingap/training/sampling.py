"""A batch sampler that keeps duplicates out of a batch.

With in-batch negatives, two pairs of the same question (a question with two gold pages) or of the
same page (two questions on one page) in one batch would act as false negatives for each other.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterator, Sequence


class NoDuplicatesBatchSampler:
    """Yields lists of indices; no two items of a batch share any key.

    ``keys[i]`` is the set of keys of item i (e.g. its question id and its page id). Each epoch
    shuffles with ``seed + epoch``; items that clash with the batch being filled wait for a later
    batch, so every item appears exactly once per epoch.
    """

    def __init__(self, keys: Sequence[set[Hashable]], batch_size: int, seed: int = 0,
                 drop_last: bool = False):
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.keys = [set(k) for k in keys]
        self.batch_size = batch_size
        self.seed = seed
        self.drop_last = drop_last
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __iter__(self) -> Iterator[list[int]]:
        order = list(range(len(self.keys)))
        random.Random(self.seed + self.epoch).shuffle(order)
        pending = order
        while pending:
            batch: list[int] = []
            used: set[Hashable] = set()
            rest = []
            for i in pending:
                if len(batch) < self.batch_size and not (self.keys[i] & used):
                    batch.append(i)
                    used |= self.keys[i]
                else:
                    rest.append(i)
            pending = rest
            if len(batch) == self.batch_size or not self.drop_last:
                yield batch

    def __len__(self) -> int:
        return sum(1 for _ in iter(self))
