"""Throughput of the local engine: a model explored to the end with no invariant (so no early
stop). Prints distinct states, generated states, seconds, states per second and peak RSS per
distinct state, as JSON (stdout) and a table (stderr).

    python -m benchmarks.throughput                   # spec, kip320, 3 replicas, default bounds
    python -m benchmarks.throughput --model fetch     # fetch, kip320, default bounds and config
    python -m benchmarks.throughput --model fetch --ghost   # with the ghost variables kept
"""

from __future__ import annotations

import click

from checker.local import explore
from model.registry import build_model

from .common import emit, peak_rss_bytes


@click.command()
@click.option("--model", "model_name", default="spec", show_default=True)
@click.option("--variant", default="kip320", show_default=True)
@click.option("--ghost", is_flag=True, help="keep ghost variables (as invariants like acked-survives need)")
def main(model_name, variant, ghost):
    """Run the benchmark once, at the model's default bounds, and report."""
    model = build_model(model_name, variant, ghost=ghost)
    before = peak_rss_bytes()
    result = explore(model, [])
    rss = peak_rss_bytes()
    emit("throughput", [{
        "model": model_name,
        "variant": variant,
        "bounds": " ".join(f"{k}={v}" for k, v in result.bounds.items()),
        "ghost": ghost,
        "distinct_states": result.distinct_states,
        "generated_states": result.generated_states,
        "depth": result.depth,
        "seconds": round(result.seconds, 2),
        "generated_per_second": round(result.generated_states / result.seconds),
        "distinct_per_second": round(result.distinct_states / result.seconds),
        "peak_rss_bytes_per_state": round((rss - before) / result.distinct_states),
        "peak_rss_mb": round(rss / 2**20),
    }])


if __name__ == "__main__":
    main()
