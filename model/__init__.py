"""Protocol models replcheck can explore: the Kafka `spec` model and the `two-phase` sanity model.

Use `model.registry` to build one by name from its bounds and configuration.
"""
