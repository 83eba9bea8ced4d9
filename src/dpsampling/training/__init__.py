"""DP-SGD with real batch generators: data, a hashed-feature logistic regression, training, AUC."""
