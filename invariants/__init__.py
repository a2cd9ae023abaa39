"""Invariants by model: `invariants.registry.invariants_for(model_name)`."""
