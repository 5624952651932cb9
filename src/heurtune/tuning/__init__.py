"""Everything that touches Optuna: study files, storage, the objective, export."""
