"""Compiled search: models written once over packed states, compiled with numba.

A model that has a kernel declares its packed layout (named slots in a fixed-width int8
row), writes each protocol action once as a compiled function over that row, and derives its
readable states by decoding. The search loop (`search_template`) is written once and
instantiated per model (`instantiate`); `search` drives it level by level.
"""
