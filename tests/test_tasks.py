import numpy as np
import pytest

from lib.core.tasks import TaskEnvironment


def test_counts_4x3():
    env = TaskEnvironment(4, 3, 3)
    assert len(env.all_stimuli) == 81
    assert len(env.all_patterns()) == 972
    sizes = env.task_set_indicators.sum(axis=1)
    assert len(env.legal_task_sets) == 72
    assert [int((sizes == s).sum()) for s in (1, 2, 3)] == [12, 36, 24]
    assert len(env.all_patterns(multitask=True)) == 5832
    assert (env.n_inputs, env.n_outputs, env.n_tasks) == (24, 9, 12)


def test_counts_3x4():
    env = TaskEnvironment(3, 4, 3)
    assert len(env.all_stimuli) == 27
    assert len(env.all_patterns()) == 324
    assert (env.n_inputs, env.n_outputs, env.n_tasks) == (21, 12, 12)


def test_legal_sets_share_no_pool():
    env = TaskEnvironment()
    for combo in env.legal_task_sets:
        assert len({k // 3 for k in combo}) == len(combo)
        assert len({k % 3 for k in combo}) == len(combo)


def test_single_task_targets_hand_picked():
    env = TaskEnvironment()
    stimulus = np.array([[0, 1, 2, 1]])
    # task 7 reads input pool 7 // 3 = 2 (feature 2) and writes output pool 7 % 3 = 1
    data = env.encode(stimulus, np.eye(12, dtype=np.int8)[[7]])
    np.testing.assert_array_equal(data.y[0], [0, 0, 0, 0, 0, 1, 0, 0, 0])
    np.testing.assert_array_equal(data.x[0, :12], [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0])
    np.testing.assert_array_equal(data.x[0, 12:], np.eye(12)[7])
    assert env.relevant_feature(data)[0] == 2
    assert env.relevant_input_unit(data)[0] == 8
    assert env.target_output_unit(data)[0] == 5
    # task 0 reads pool 0 (feature 0) into output pool 0
    data = env.encode(stimulus, np.eye(12, dtype=np.int8)[[0]])
    np.testing.assert_array_equal(data.y[0], [1, 0, 0, 0, 0, 0, 0, 0, 0])


def test_multitask_target_is_sum_of_single_targets():
    env = TaskEnvironment()
    stimulus = np.array([[2, 0, 1, 1]])
    tasks = np.zeros((1, 12), dtype=np.int8)
    tasks[0, [2, 4, 9]] = 1  # pools 0->2, 1->1, 3->0
    data = env.encode(stimulus, tasks)
    np.testing.assert_array_equal(data.y[0], [0, 1, 0, 1, 0, 0, 0, 0, 1])
    singles = sum(env.encode(stimulus, np.eye(12, dtype=np.int8)[[k]]).y for k in (2, 4, 9))
    np.testing.assert_array_equal(data.y, singles)
    assert data.task[0] == -1


def test_3x4_targets():
    env = TaskEnvironment(3, 4, 3)
    data = env.encode(np.array([[1, 2, 0]]), np.eye(12, dtype=np.int8)[[6]])  # pool 1 -> out pool 2
    expected = np.zeros(12)
    expected[2 * 3 + 2] = 1
    np.testing.assert_array_equal(data.y[0], expected)


def test_iid_sampling_reproducible_and_overlapping():
    env = TaskEnvironment()
    a_train, a_test = env.make_data(3)
    b_train, _ = env.make_data(3)
    np.testing.assert_array_equal(a_train.x, b_train.x)
    assert a_train.x.shape == (500, 24) and a_test.y.shape == (500, 9)
    assert (a_train.n_active_tasks == 1).all()
    train_rows = {r.tobytes() for r in a_train.x}
    assert any(r.tobytes() in train_rows for r in a_test.x)  # 500 + 500 draws from 972: overlap


def test_disjoint_split_has_no_overlap():
    env = TaskEnvironment()
    train, test = env.make_data(0, 500, 472, split="disjoint")
    keys = lambda d: {r.tobytes() for r in d.x}
    assert len(keys(train)) == 500 and len(keys(test)) == 472
    assert not keys(train) & keys(test)


@pytest.mark.parametrize("split", ["iid", "disjoint"])
def test_multitask_sizes_are_uniform(split):
    env = TaskEnvironment()
    train, _ = env.make_data(1, 2400, 1, split=split, multitask=True)
    fractions = np.bincount(train.n_active_tasks, minlength=4)[1:] / len(train)
    np.testing.assert_allclose(fractions, 1 / 3, atol=0.04)
    legal = {r.tobytes() for r in env.task_set_indicators}
    assert all(r.tobytes() in legal for r in train.tasks)
