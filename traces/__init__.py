"""Counterexample traces: the value (`trace`), its file format (`store`), checking that it
replays (`replay`) and showing it to a person (`table`)."""
