import numpy as np

from lib.experiments.schedules import params_of, run_pairs
from lib.core.tasks import TaskEnvironment

KW = dict(n_hidden=16, n_train=50, n_test=30, n_iterations=100, n_snapshots=11)


def test_same_parameters_give_identical_arrays():
    env = TaskEnvironment()
    a = run_pairs(env, "ET", [0, 1], record_hidden=True, **KW)
    b = run_pairs(env, "ET", [0, 1], record_hidden=True, **KW)
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert a["hidden_train"].shape == (2, 2, 11, 50, 16)
    assert a["loss_test"].shape == (2, 2, 11)


def test_different_seeds_differ_and_finetune_continues():
    env = TaskEnvironment()
    a = run_pairs(env, "LR", [0], **KW)
    c = run_pairs(env, "LR", [1], **KW)
    assert not np.array_equal(a["x_train"], c["x_train"])
    tuned = run_pairs(env, "LR", [0], phase="finetune", start_params=params_of(a, "params_final"), **KW)
    np.testing.assert_array_equal(tuned["params_initial/w_output"], a["params_final/w_output"])
    assert (tuned["tasks_train"].sum(axis=-1) > 1).any()  # multitask data
    assert (tuned["loss_train"][..., -1] < tuned["loss_train"][..., 0]).all()  # it learns


def test_progress_chunks_do_not_change_results(monkeypatch):
    import lib.core.training

    env = TaskEnvironment()
    chunked = run_pairs(env, "ET", [2], **KW)
    monkeypatch.setattr(lib.core.training, "N_PROGRESS_CHUNKS", 1)
    whole = run_pairs(env, "ET", [2], **KW)
    for key in chunked:
        np.testing.assert_array_equal(chunked[key], whole[key], err_msg=key)


def test_finetuning_from_saved_schedule_weights_reproduces_the_schedule():
    from lib.experiments.schedules import run_schedule

    env = TaskEnvironment()
    kw = dict(n_hidden=16, n_train=50, n_test=30, progress=False)
    result = run_schedule(env, "LR", [3], n_iterations=100, **kw)
    again = run_pairs(env, "LR", [3], phase="finetune", start_params=params_of(result, "single/params_final"),
                      n_iterations=100, n_hidden=16, n_train=50, n_test=30)
    np.testing.assert_array_equal(again["loss_test"], result["finetune/loss_test"])
