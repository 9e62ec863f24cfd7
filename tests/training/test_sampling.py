from fingap.training.sampling import NoDuplicatesBatchSampler


def _keys():
    # q1 has two gold pages; page P1 is gold for q1 and q2
    pairs = [("q1", "P1"), ("q1", "P2"), ("q2", "P1"), ("q3", "P3"), ("q4", "P4"), ("q5", "P5")]
    return [{("q", q), ("p", p)} for q, p in pairs]


def test_no_batch_holds_a_question_or_page_twice():
    keys = _keys()
    for seed in range(20):
        sampler = NoDuplicatesBatchSampler(keys, batch_size=4, seed=seed)
        seen = []
        for batch in sampler:
            used = [k for i in batch for k in keys[i]]
            assert len(used) == len(set(used))
            seen += batch
        assert sorted(seen) == list(range(len(keys)))  # every item once per epoch


def test_epochs_reshuffle_deterministically():
    s = NoDuplicatesBatchSampler(_keys(), batch_size=2, seed=3)
    e0 = list(s)
    s.set_epoch(1)
    e1 = list(s)
    s.set_epoch(0)
    assert list(s) == e0
    assert NoDuplicatesBatchSampler(_keys(), batch_size=2, seed=3).__iter__().__next__() == e0[0]
    assert len(e1) == len(s)
