"""How a simulation weighs its walks' steps (`checker.simulation.walks` says what each means), named
apart from it so that the command line can offer them without importing numba."""

WEIGHTINGS = ("mixed", "random", "uniform")
