"""Streams are deterministic given their seed and visit documents as their names promise."""
import numpy as np
import pytest
import scipy.sparse as sp

from topicbench.streams import (STREAMS, EveryNthBatch, FixedTestSet, Lookahead, Stream, StreamError, log_checkpoints,
                                make_holdout, reserved_draws, scoring_positions, stream_order)


def test_shuffled_is_a_fresh_permutation_each_pass():
    order = stream_order("shuffled", 100, seed=3, passes=3)
    passes = order.reshape(3, 100)
    for p in passes:
        assert sorted(p) == list(range(100))
    assert not np.array_equal(passes[0], passes[1])
    assert np.array_equal(order, stream_order("shuffled", 100, seed=3, passes=3))
    assert not np.array_equal(order, stream_order("shuffled", 100, seed=4, passes=3))


def test_with_replacement_repeats_documents():
    order = stream_order("with_replacement", 100, seed=0, passes=2)
    assert len(order) == 200 and order.max() < 100
    assert len(np.unique(order)) < 200  # with replacement: repeats are certain at this size
    assert np.array_equal(order, stream_order("with_replacement", 100, seed=0, passes=2))


def test_time_ordered_breaks_ties_by_doc_id():
    times = np.array([2.0, 1.0, 2.0, 1.0, 0.5])
    doc_ids = np.array(["e", "d", "a", "b", "z"])
    order = stream_order("time_ordered", 5, seed=9, times=times, doc_ids=doc_ids)
    assert list(order) == [4, 3, 1, 2, 0]
    with pytest.raises(StreamError, match="needs document times"):
        stream_order("time_ordered", 5, seed=0)
    with pytest.raises(StreamError, match="one pass only"):
        stream_order("time_ordered", 5, seed=0, passes=2, times=times)


def test_unknown_stream_and_bad_holdout():
    with pytest.raises(StreamError, match="unknown stream 'sorted'"):
        stream_order("sorted", 5, seed=0)
    with pytest.raises(StreamError, match="unknown held-out policy 'random'"):
        make_holdout("random")
    with pytest.raises(StreamError, match="n must be >= 1"):
        make_holdout("lookahead", n=0)
    assert [type(make_holdout(p)) for p in ("fixed", "every_nth_batch", "lookahead")] == [FixedTestSet, EveryNthBatch,
                                                                                         Lookahead]


def test_minibatches_cover_the_order():
    counts = sp.csr_matrix(np.eye(10, dtype=np.int32) + 1)
    order = stream_order("shuffled", 10, seed=1)
    stream = Stream(counts, order, batch_size=4)
    batches = list(stream)
    assert [len(b) for b in batches] == [4, 4, 2]
    assert np.array_equal(np.concatenate([b.rows for b in batches]), order)
    assert (batches[1].counts != counts[order[4:8]]).nnz == 0


def test_log_checkpoints_end_at_total():
    points = log_checkpoints(20000, 10, first=256)
    assert points[0] == 256 and points[-1] == 20000 and np.all(np.diff(points) > 0)
    ratios = points[1:] / points[:-1]
    assert np.allclose(ratios, ratios[0], rtol=0.01)
    # by hand: 16 (1500/16)^(i/4) = 16, 49.8, 154.9, 482.06, 1500 (rounded to the nearest document, not down)
    assert log_checkpoints(1500, 5, first=16).tolist() == [16, 50, 155, 482, 1500]


def test_reserved_draws_never_draw_a_window_before_scoring_it():
    """SVI's with-replacement stream under lookahead: each window is fresh and kept out of the draws until scored."""
    positions = scoring_positions(log_checkpoints(900, 8, first=30), 900, 30)
    order, windows = reserved_draws(200, positions, 25, seed=4)
    assert len(order) == 900 and sorted(windows) == list(positions)
    for stop, window in windows.items():
        assert len(window) == 25 and len(np.unique(window)) == 25
        assert not np.isin(window, order[:stop]).any(), stop  # never drawn before it is scored
    # between its reservation and its scoring no window is drawn; after scoring it may be
    assert np.isin(windows[positions[0]], order[positions[0]:]).any()
    assert len(np.unique(order)) < len(order)  # still sampling with replacement
    again, _ = reserved_draws(200, positions, 25, seed=4)
    assert np.array_equal(order, again)


def test_lookahead_rejects_what_it_cannot_score():
    with pytest.raises(StreamError, match="batch method"):
        make_holdout("lookahead", 5).check(batch_method=True, test_docs=10)
    with pytest.raises(StreamError, match="leaves nothing to train on"):
        make_holdout("lookahead", 10).training_order(np.arange(10), "shuffled", 0, 2, 10, False)
    with pytest.raises(StreamError, match="leaves nothing to train on"):  # a longer stream over as few documents
        make_holdout("lookahead", 10).training_order(np.arange(30) % 10, "with_replacement", 0, 2, 10, False)
    with pytest.raises(StreamError, match="every document of which"):
        make_holdout("every_nth_batch", 3).check(batch_method=True, test_docs=10)
    make_holdout("every_nth_batch", 1).check(batch_method=True, test_docs=10)  # each pass scored before it trains
    with pytest.raises(StreamError, match="needs a test split"):
        make_holdout("fixed").check(batch_method=False, test_docs=0, corpus="c")


def test_scoring_positions_round_up_to_the_minibatch_that_reaches_each_checkpoint():
    """A checkpoint at 1, 30, 31 or 899 documents is scored after the minibatch (of 30) that reaches it: 30, 30, 60 and
    the end of the stream, 900 (never before the checkpoint)."""
    assert scoring_positions(np.array([1, 30, 31, 899]), 900, 30).tolist() == [30, 60, 900]


def test_fractional_passes_round_to_the_nearest_document():
    """0.57 passes over 100 documents are 57 documents (0.57 * 100 is 56.99999999999999 in binary: rounded, not cut);
    1.5 passes over 10 are 15: a whole permutation, then 5 documents of a second one."""
    assert len(stream_order("shuffled", 100, seed=0, passes=0.57)) == 57
    order = stream_order("shuffled", 10, seed=0, passes=1.5)
    assert len(order) == 15 and sorted(order[:10]) == list(range(10))


def test_every_nth_batch_scores_the_nth_batch_of_each_n_before_training_on_it():
    """Paisley et al. 2014, sec. 11.6, "hold out every tenth batch": with n = 3, the 3rd and 6th minibatches (0-based
    2 and 5), not the first, each scored on its own rows, as planned before the fit (scheduled)."""
    policy = make_holdout("every_nth_batch", 3)
    order = policy.training_order(np.arange(12), "shuffled", 0, 2, 12, False)
    trained = np.zeros(12, dtype=bool)
    scored = {}
    for batch in Stream(sp.csr_matrix(np.ones((12, 3))), order, batch_size=2):
        evaluation = policy.before_batch(batch, trained)
        if evaluation is not None:
            scored[batch.index] = evaluation.rows.tolist()
        trained[batch.rows] = True
    assert scored == {2: [4, 5], 5: [10, 11]}
    assert [(at, rows.tolist()) for at, rows in policy.scheduled(order, 2)] == [(4, [4, 5]), (10, [10, 11])]
    with pytest.raises(StreamError, match="holdout_n = 3 but the stream has only 2 minibatches"):
        policy.training_order(np.arange(4), "shuffled", 0, 2, 4, False)


def test_a_batch_method_is_scored_once_per_pass_and_lookahead_scores_the_next_n_documents():
    """A batch method (minibatch = the corpus, 10 documents, 3 passes) is scored at the end of each pass: 10, 20, 30
    documents. Look-ahead with n = 2 on a 10-document stream trains on the first 8 and, after 4 documents (its one
    checkpoint, the first minibatch of 4), scores the next two, documents 4 and 5."""
    policy = make_holdout("fixed")
    policy.training_order(np.arange(30) % 10, "shuffled", 0, 10, 10, True)
    assert policy.checkpoints.tolist() == [10, 20, 30]
    ahead = Lookahead(n=2, n_checkpoints=1)
    train = ahead.training_order(np.arange(10), "shuffled", 0, 4, 10, False)
    assert train.tolist() == list(range(8))
    trained = np.isin(np.arange(10), train[:4])
    assert ahead.after_batch(4, trained).rows.tolist() == [4, 5]


def test_time_ordered_ties_order_numbered_ids_by_number(tmp_path):
    """Documents with one time stamp and numbered ids (a CSV's row numbers, a JSONL's line numbers, NEWIDs, 'train-N')
    -> the stream takes them by number, in memory and from disk (was text order: '10' and '11' before '2', so a
    time-ordered stream silently reordered every coarse time stamp's documents); ids compare by the text before the
    trailing number first (one later document closes each stream: a stream of one time alone is refused). Expected
    orders worked out by hand."""
    import scipy.sparse as sp

    from topicbench.corpus import Corpus, load_corpus, make_docs_frame, save_corpus
    from topicbench.run import _id_ranks

    ids = ["3", "10", "9", "0", "11", "2", "1"]  # the six tied: values 3 10 9 0 11 2; "1" a year later
    tied = np.array([2001.0] * 6 + [2002.0])
    counts = sp.csr_matrix(np.ones((7, 2), dtype=np.int32))
    memory = Corpus(counts, ["apple", "bread"], make_docs_frame(7, doc_id=ids, time=tied), {"name": "t"})
    disk = load_corpus(save_corpus(memory, tmp_path / "c"))
    for corpus in (memory, disk, disk.split("train")):  # by value: 0 (row 3), 2 (row 5), 3, 9, 10, 11, then row 6
        assert list(stream_order("time_ordered", 7, 0, times=tied, doc_ids=_id_ranks(corpus))) == [3, 5, 0, 2, 1, 4, 6]
    # a view of rows 0 2 3 5 6 (an index array, as a subset or split makes): ids 3 9 0 2 tied, then 1 a year later
    for corpus in (memory, disk):
        view = corpus.select(np.array([0, 2, 3, 5, 6]))
        assert list(stream_order("time_ordered", 5, 0, times=tied[[0, 2, 3, 5, 6]], doc_ids=_id_ranks(view))) == \
            [2, 3, 0, 1, 4]
    # the text before a trailing number, then the number: '7' '10' | 'a1' 'a9' 'a10' | 'b' | 'train-2' 'train-10'
    mixed = ["a10", "a9", "b", "a1", "7", "10", "train-10", "train-2", "0"]  # "0" a time later
    times = np.array([1.0] * 8 + [2.0])
    counts = sp.csr_matrix(np.ones((9, 2), dtype=np.int32))
    memory = Corpus(counts, ["apple", "bread"], make_docs_frame(9, doc_id=mixed, time=times), {"name": "t"})
    for corpus in (memory, load_corpus(save_corpus(memory, tmp_path / "mixed"))):
        assert list(stream_order("time_ordered", 9, 0, times=times, doc_ids=_id_ranks(corpus))) == \
            [4, 5, 3, 1, 0, 2, 7, 6, 8]


def test_with_replacement_draws_every_document_uniformly():
    """Hoffman et al. 2013's SVI samples each document with probability 1/D: 5 documents, 2,000 draws, each drawn
    400 times in expectation (binomial s.d. 17.9): every count within 5 s.d. (85) of 400."""
    order = stream_order("with_replacement", 5, seed=3, passes=400.0)
    assert len(order) == 2000
    counts = np.bincount(order, minlength=5)
    assert len(counts) == 5 and np.all(np.abs(counts - 400) <= 85), counts


def test_every_nth_batch_accepts_a_stream_of_exactly_n_minibatches():
    """Three minibatches and n = 3: minibatch 2 (the third) is scored, so the stream is not refused."""
    from topicbench.streams import Minibatch

    policy = make_holdout("every_nth_batch", 3)
    order = policy.training_order(np.arange(30), "shuffled", 0, 10, 30, False)
    batch = Minibatch(sp.csr_matrix((10, 4)), order[20:30], order[20:30], None, 2)
    event = policy.before_batch(batch, np.zeros(30, dtype=bool))
    assert event is not None and list(event.rows) == list(range(20, 30))


def test_a_one_document_stream_in_minibatches_of_one_is_accepted():
    """The smallest valid inputs (one document, one pass, minibatches of one) are streams, not errors."""
    for kind in STREAMS:
        order = stream_order(kind, 1, seed=0, times=[3.0])
        assert list(order) == [0]
        assert [list(b.rows) for b in Stream(sp.csr_matrix(np.ones((1, 2))), order, batch_size=1)] == [[0]]


def test_streams_refuse_what_leaves_nothing_to_stream_naming_it():
    """No training document, passes that round to no document (each kind), minibatches of 0 documents, 0 checkpoints
    -> a StreamError naming that culprit, not an empty stream, a concatenate or division error, or no checkpoint."""
    with pytest.raises(StreamError, match="empty training set"):
        stream_order("shuffled", 0, seed=0)
    for kind in ("shuffled", "with_replacement"):
        with pytest.raises(StreamError, match="rounds to no document"):
            stream_order(kind, 10, seed=0, passes=0.01)
    with pytest.raises(StreamError, match="batch_size must be >= 1"):
        Stream(sp.csr_matrix(np.ones((3, 2))), np.arange(3), batch_size=0)
    with pytest.raises(StreamError, match="n_checkpoints must be >= 1"):
        log_checkpoints(10, 0)
    with pytest.raises(StreamError, match="n_checkpoints must be >= 1"):
        make_holdout("fixed", n_checkpoints=0)


def test_time_ordered_refuses_two_documents_of_one_time():
    """Two documents at one time (the smallest stream with ties only) -> refused: its order would be doc-id order."""
    with pytest.raises(StreamError, match="one time"):
        stream_order("time_ordered", 2, seed=0, times=[5.0, 5.0])
    assert stream_order("time_ordered", 2, seed=0, times=[6.0, 5.0]).tolist() == [1, 0]


def test_order_memory_budget_is_16_bytes_a_visited_document(monkeypatch):
    """The order is 8 bytes a document, twice while built: 50 documents (5 passes of 10) need 800 bytes, refused with
    799 available and accepted with 800; max_docs = 20 caps the visited documents, so 320 bytes then suffice."""
    import topicbench.evaluate

    free = {"bytes": 799}
    monkeypatch.setattr(topicbench.evaluate, "available_memory", lambda: free["bytes"])
    with pytest.raises(StreamError, match=r"stream of 50 documents, whose order alone needs"):
        stream_order("shuffled", 10, seed=0, passes=5)
    free["bytes"] = 800
    assert len(stream_order("shuffled", 10, seed=0, passes=5)) == 50
    free["bytes"] = 319
    with pytest.raises(StreamError, match=r"\(max_docs 20\)"):
        stream_order("with_replacement", 10, seed=0, passes=5, max_docs=20)
    free["bytes"] = 320
    assert len(stream_order("with_replacement", 10, seed=0, passes=5, max_docs=20)) == 20


def test_log_checkpoints_start_at_one_document_by_default():
    """geomspace(1, 100, 3) = 1, 10, 100; a first of 0 still starts at one document (log of 0 has no place)."""
    assert log_checkpoints(100, 3).tolist() == [1, 10, 100]
    assert log_checkpoints(100, 3, first=0).tolist() == [1, 10, 100]


def test_fixed_policy_scores_each_checkpoint_once_and_excludes_nothing():
    """8 documents in minibatches of 1, 4 checkpoints: log-spaced 1, 2, 4, 8 -> the test split scored after documents
    1, 2, 4 and 8 (not 3, 5, 6, 7), never again at the end, and never with a document excluded (test documents are not
    training documents)."""
    policy = make_holdout("fixed", n_checkpoints=4)
    policy.training_order(np.arange(8), "shuffled", 0, 1, 8, False)
    trained = np.zeros(8, dtype=bool)
    events = {}
    for processed in range(1, 9):
        trained[processed - 1] = True
        events[processed] = policy.after_batch(processed, trained)
    assert [p for p, e in events.items() if e is not None] == [1, 2, 4, 8]
    assert all(e.kind == "test" and e.rows is None and e.excluded == 0 for e in events.values() if e is not None)
    assert policy.at_end(8, trained) is None  # the end is a checkpoint: scored once


def test_reserved_draws_by_hand():
    """The first window is n documents drawn without replacement from all D, then the stream draws uniformly from the
    other D - n, positions[0] times, from the same generator (a tiny case transcribed by hand: D = 6, n = 2)."""
    order, windows = reserved_draws(6, np.array([4, 7]), 2, seed=5)
    rng = np.random.default_rng([5, 0x57, 0x1A])
    window = rng.choice(np.arange(6), size=2, replace=False)
    pool = np.array([d for d in range(6) if d not in window])
    assert windows[4].tolist() == window.tolist()
    assert order[:4].tolist() == pool[rng.integers(4, size=4)].tolist()
    assert len(order) == 7 and order.min() >= 0 and order.max() < 6


def test_every_nth_batch_with_n_2_is_refused_on_a_batch_method():
    """n = 2 on a batch method scores its second pass, whose every document the first pass trained on."""
    with pytest.raises(StreamError, match="every document of which"):
        make_holdout("every_nth_batch", 2).check(batch_method=True, test_docs=10)


def test_stream_takes_doc_ids_and_times_given_as_lists():
    """doc_ids and times as Python lists (not arrays) -> each minibatch carries its rows' ids and times."""
    stream = Stream(sp.csr_matrix(np.ones((4, 2))), np.array([2, 0, 3, 1]), batch_size=2, doc_ids=["a", "b", "c", "d"],
                    times=[10.0, 11.0, 12.0, 13.0])
    first, second = stream
    assert first.doc_ids.tolist() == ["c", "a"] and first.times.tolist() == [12.0, 10.0]
    assert second.doc_ids.tolist() == ["d", "b"] and second.times.tolist() == [13.0, 11.0]


def test_checkpoints_denser_than_the_documents_are_every_count():
    """n_checkpoints far past the document count gives every count from first to total_docs (as rounding would),
    without n_checkpoints floats; a schedule too sparse for that keeps at most n_checkpoints points."""
    np.testing.assert_array_equal(log_checkpoints(10, 10 ** 12), np.arange(1, 11))
    np.testing.assert_array_equal(log_checkpoints(20, 10 ** 6, first=5), np.arange(5, 21))
    sparse = log_checkpoints(1000, 300)
    assert len(sparse) <= 300 and sparse[0] == 1 and sparse[-1] == 1000


def test_online_checkpoints_are_log_spaced_from_the_first_minibatch():
    """An online run's checkpoints are log-spaced from one minibatch to the end, for the fixed and the look-ahead
    policy alike: 1,000 documents in minibatches of 100, 3 checkpoints -> geomspace(100, 1000, 3) = 100, 316.2, 1000
    (by hand: sqrt(100 * 1000)), not from 1 document (1, 31.6, 1000) nor one per minibatch (a batch method's). The
    look-ahead stream (10 more documents, seed 7) scores its windows after the minibatches reaching them: 100, 400
    (the 4th minibatch reaches 316) and 1000, which is also what it plans before the fit (scheduled)."""
    fixed = make_holdout("fixed", n_checkpoints=3)
    fixed.training_order(np.arange(1000), "shuffled", 7, 100, 1000, False)
    assert fixed.checkpoints.tolist() == [100, 316, 1000]
    ahead = make_holdout("lookahead", n=10, n_checkpoints=3)
    train = ahead.training_order(np.arange(1010), "shuffled", 7, 100, 1010, False)
    assert len(train) == 1000 and ahead.checkpoints.tolist() == [100, 316, 1000]
    plan = [(processed, rows.tolist()) for processed, rows in ahead.scheduled(train, 100)]
    assert plan == [(p, list(range(p, p + 10))) for p in (100, 400, 1000)]


def test_every_nth_batch_counts_a_last_partial_minibatch():
    """25 documents in minibatches of 10 are 3 minibatches (10, 10, 5): with n = 3 the third, partial one is scored
    (documents 20-24), so the stream is not refused as having only 2.5 minibatches."""
    policy = make_holdout("every_nth_batch", 3)
    order = policy.training_order(np.arange(25), "shuffled", 0, 10, 25, False)
    assert [(at, rows.tolist()) for at, rows in policy.scheduled(order, 10)] == [(20, [20, 21, 22, 23, 24])]
