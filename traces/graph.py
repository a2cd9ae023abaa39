"""A trace as a networkx graph: one node per state, one edge per step.

Nodes carry a label that summarises every replica (`r1: [0:a@e0] LEO 1 HW 0 e0 leader`, without
placeholders such as `- no leader`), the step number and whether the state violates the
invariant (`violating`) or, in a witness's trace, is where the witness is reached (`reached`);
edges carry the action in protocol words. Exports use networkx's own writers (DOT
through pydot, GraphML, node-link JSON).
"""

from __future__ import annotations

import json

import networkx as nx

from checker.output_kinds import GRAPH_MARK

from .changes import tidy_line
from .legend import COLOURS
from .outcome import is_witness
from .trace import Trace


def trace_graph(trace: Trace, model) -> nx.DiGraph:
    """The trace as a path graph 0 -> 1 -> ... -> k (k = number of steps); the graph's `kind`
    says whether the trace's property is an invariant or a witness, its `generator` that
    replcheck drew it (`checker.output_kinds`)."""
    graph = nx.DiGraph(generator=GRAPH_MARK, model=trace.model, variant=trace.variant or "", invariant=trace.invariant,
                       kind="witness" if is_witness(trace) else "invariant", bounds=json.dumps(trace.bounds))
    states = trace.states()
    for i, state in enumerate(states):
        label = "\n".join(f"{name}: {' '.join(filter(None, map(tidy_line, lines)))}".rstrip()
                          for name, lines in model.state_columns(state).items())
        graph.add_node(i, label=label, step=i, **{last_state_key(graph): i == len(states) - 1})
    for i, step in enumerate(trace.steps):
        graph.add_edge(i, i + 1, label=model.describe_step(step.action, states[i], step.state), action=step.action[0])
    return graph


def last_state_key(graph: nx.DiGraph) -> str:
    """The node attribute that marks the trace's last state: `reached` for a witness's trace,
    `violating` for an invariant's."""
    return "reached" if graph.graph["kind"] == "witness" else "violating"


def last_state_colour(graph: nx.DiGraph) -> str:
    """The colour of the last state's box: red where an invariant fails, indigo where a witness
    is reached."""
    return COLOURS["reached" if graph.graph["kind"] == "witness" else "fails"]


def to_dot(graph: nx.DiGraph, label: str | None = None) -> str:
    """DOT text (networkx's pydot bridge), its first line the comment that marks it as
    replcheck's (`checker.output_kinds`); the last state (violating, or reaching the witness)
    is drawn in its colour, labels left-aligned; `label` (a title and legend, for pictures) goes
    on top of the drawing."""
    dot, last = graph.copy(), last_state_key(graph)
    if label:
        dot.graph.update(label=label.replace("\n", "\\n"), labelloc="t", labeljust="l")
    for _, data in dot.nodes(data=True):
        data["shape"] = "box"
        data["fontname"] = "monospace"
        data["label"] = data["label"].replace("\n", "\\l") + "\\l"
        if data[last]:
            data["color"] = last_state_colour(graph)
    return f"/* {GRAPH_MARK} */\n" + nx.nx_pydot.to_pydot(dot).to_string()


def to_graphml(graph: nx.DiGraph) -> str:
    """GraphML text (networkx's writer), its first line the comment that marks it as replcheck's."""
    return f"<!-- {GRAPH_MARK} -->\n" + "\n".join(nx.generate_graphml(graph)) + "\n"


def to_node_link_json(graph: nx.DiGraph) -> str:
    """Node-link JSON (networkx's `node_link_data`)."""
    return json.dumps(nx.node_link_data(graph, edges="links"), indent=1) + "\n"
