from fingap.training.trainer_logs import loss_curves


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
