"""The `two-phase` model: textbook two-phase commit, a non-Kafka model for testing the checker."""
