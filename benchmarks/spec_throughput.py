"""Throughput of the local engine on the `spec` model: kip320, 3 replicas, default bounds,
explored to the end with no invariant (so no early stop).

Prints distinct states, generated states, seconds, generated states per second and peak RSS
per distinct state, as JSON (stdout) and a table (stderr).

    python -m benchmarks.spec_throughput [--variant kip320] [--replicas 3] ...
"""

from __future__ import annotations

import click

from checker.local import explore
from model.registry import build_model

from .common import emit, peak_rss_bytes


@click.command()
@click.option("--variant", default="kip320", show_default=True)
@click.option("--replicas", default=3, show_default=True)
@click.option("--log-size", default=2, show_default=True)
@click.option("--max-records", default=2, show_default=True)
@click.option("--max-epoch", default=2, show_default=True)
def main(variant, replicas, log_size, max_records, max_epoch):
    """Run the benchmark once and report."""
    model = build_model("spec", variant, replicas=replicas, log_size=log_size, max_records=max_records,
                        max_epoch=max_epoch)
    before = peak_rss_bytes()
    result = explore(model, [])
    rss = peak_rss_bytes()
    emit("spec_throughput", [{
        "variant": variant,
        "bounds": f"{replicas}/{log_size}/{max_records}/{max_epoch}",
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
