from types import SimpleNamespace

from fingap.training.trainer_common import common_arguments, loss_curves


def test_step_and_epoch_losses_from_a_trainer_log():
    history = [
        {"loss": 2.0, "step": 1, "epoch": 0.5},
        {"loss": 1.0, "step": 2, "epoch": 1.0},     # the last step of epoch 1
        {"eval_mrr": 0.3, "step": 2, "epoch": 1.0},  # evaluation rows carry no loss
        {"loss": 0.5, "step": 3, "epoch": 1.5},
        {"train_runtime": 9.0, "step": 3, "epoch": 2.0, "train_loss": 1.17},  # the summary
    ]
    steps, epochs = loss_curves(history)
    assert steps == [2.0, 1.0, 0.5]
    assert epochs == [1.5, 0.5]  # epoch 1: (2 + 1) / 2; epoch 2: 0.5
    assert loss_curves([]) == ([], [])


def test_common_arguments_follow_the_config():
    cfg = SimpleNamespace(epochs=3, batch_size=16, lr=2e-5, warmup_ratio=0.1, weight_decay=0.01,
                          precision="bf16")
    args = common_arguments(cfg, seed=7, max_steps=None, report_to=[], run_name=None,
                            output_dir="/tmp/x")
    assert (args["num_train_epochs"], args["per_device_train_batch_size"]) == (3, 16)
    assert args["max_steps"] == -1 and args["report_to"] == "none"
    assert args["bf16"] is True and args["seed"] == args["data_seed"] == 7
    fp32 = common_arguments(SimpleNamespace(**{**vars(cfg), "precision": "fp32"}), 7, 5,
                            ["mlflow", "tensorboard"], "fold_0", "/tmp/x")
    # MLflow comes as fingap's own callback (integration_callbacks), the others by name
    assert fp32["bf16"] is False and fp32["max_steps"] == 5
    assert fp32["report_to"] == ["tensorboard"]


def test_mlflow_is_the_callback_that_ends_only_its_own_run():
    from transformers.integrations import MLflowCallback

    from fingap.training.trainer_common import integration_callbacks

    assert integration_callbacks([]) == []
    (callback,) = integration_callbacks(["mlflow"])
    assert isinstance(callback, MLflowCallback) and callback.own_run is None
