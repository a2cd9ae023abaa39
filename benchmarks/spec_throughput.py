"""The `spec` throughput benchmark the core issue names: `benchmarks.throughput` with its
defaults (kip320, 3 replicas, default bounds). `python -m benchmarks.spec_throughput`."""

from .throughput import main

if __name__ == "__main__":
    main()
