"""`python -m benchmarks`: the benchmark suite (see `benchmarks.suite`)."""

from .suite import main

main()
