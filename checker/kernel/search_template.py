"""The compiled search loop, written once for every model.

numba caches a compiled function per source file, and a function that receives another
compiled function as an argument is recompiled in every process. So this file is a template:
`instantiate` writes one copy per model into the kernel cache, with the line marked MODEL
naming that model's kernel module in place of MODEL_KERNEL (the template itself is never
imported: the generic checker imports no model), and each copy is compiled and cached once.
"""


import numpy as np

from checker.coverage import ANY_ACTOR
from checker.kernel.fingerprint import fingerprint, fingerprints
from checker.kernel.guards import GUARD_SAMPLE
from checker.kernel.jit import kernel
from checker.kernel.symmetry import compare_slots
from checker.kernel.prefetch import prefetch
from checker.kernel.prng import draw
from checker.kernel.reduction import WORD, count_actions
from checker.kernel.steps import code_actor, code_kind
from checker.kernel.visited_set import add, any_full, contains, home, table_of
from MODEL_KERNEL import broken_steps, condition_holds, milestone, permute  # MODEL
from MODEL_KERNEL import head_rank, permute_head, permute_part, successors, violations  # MODEL


@kernel
def renames_smaller(row, lay, perm, head, t, best):
    """Whether `row` renamed by perm comes before `best`, where t holds that renaming's first
    `head` slots and they equal best's. The renaming is written into t part by part
    (`permute_part`) only until a part differs from best: t holds the whole renaming only when
    it is the smaller."""
    part, end = 1, head
    while end < row.shape[0]:
        after = permute_part(row, lay, perm, part, t)
        order = compare_slots(t, best, end, after)
        part, end = part + 1, after
        if order > 0:
            return False
        if order < 0:
            while end < row.shape[0]:
                end = permute_part(row, lay, perm, part, t)
                part += 1
            return True
    return False


@kernel
def smallest_rank(row, lay, perms):
    """The smallest `head_rank` of row's renamings, the first renaming of that rank, and how
    many have it."""
    low, first, count = head_rank(row, lay, perms[0]), 0, 1
    for k in range(1, perms.shape[0]):
        rank = head_rank(row, lay, perms[k])
        if rank < low:
            low, first, count = rank, k, 1
        elif rank == low:
            count += 1
    return low, first, count


@kernel
def canonical(row, lay, perms, best, scratch):
    """Fill `best` with the representative of row's orbit: its smallest renaming. Only the
    renamings of the smallest `head_rank` can be it (a number per renaming: a few lookups).
    Those are compared first on the head of the row alone (`permute_head`, a few renamed ids
    and sets); of those whose head ties with the smallest, the first is renamed in full and each
    other only as far as it ties with the smallest so far (`renames_smaller`)."""
    low, first, left = smallest_rank(row, lay, perms)
    head = permute_head(row, lay, perms[first], best)
    ties = 1
    k = first + 1
    while left > 1:  # the head-smallest of the other renamings of rank `low`
        if head_rank(row, lay, perms[k]) == low:
            left -= 1
            permute_head(row, lay, perms[k], scratch)
            order = compare_slots(scratch, best, 0, head)
            if order < 0:
                for i in range(head):
                    best[i] = scratch[i]
                first, ties = k, 1
            elif order == 0:
                ties += 1
        k += 1
    if first == 0:  # the identity (`symmetry.permutations` lists it first)
        for i in range(row.shape[0]):
            best[i] = row[i]
    else:
        permute(row, lay, perms[first], best)
    k = first + 1
    while ties > 1:  # the others whose head ties with it, as far as each ties
        if head_rank(row, lay, perms[k]) == low:
            permute_head(row, lay, perms[k], scratch)
            if compare_slots(scratch, best, 0, head) == 0:
                ties -= 1
                if renames_smaller(row, lay, perms[k], head, scratch, best):
                    for i in range(best.shape[0]):
                        best[i] = scratch[i]
        k += 1
    return best


@kernel
def first_open(chosen, closed, enabled, want_enabled):
    """The first action of set `chosen` not yet `closed` over that is enabled (or, with
    `want_enabled` false, disabled); -1 when there is none."""
    for v in range(chosen.shape[0]):
        pick = enabled[v] if want_enabled else ~enabled[v]
        open_ = chosen[v] & pick & ~closed[v]
        if open_:
            return v * WORD + count_actions((open_ & -open_) - 1)
    return -1


@kernel
def close_over(s, lay, red, chosen, closed, enabled, tried, best_size, cmark, cval, mark):
    """Close the set of actions `chosen` (at state s, whose enabled actions are `enabled`): add
    the actions dependent on each enabled member and, for each disabled member, the enablers of
    its false condition with the fewest enablers (its enablers where `condition_holds` finds none
    false; conditions are evaluated once per state, marked `mark` in cmark/cval). Enabled
    members are closed over first: their dependents decide most sets. Returns how many enabled
    actions the closed set holds, or -1 as soon as it is given up: it holds an enabled action of a
    kind every cycle takes, or one `tried` before as a seed (it then holds that seed's whole set,
    which was given up or no smaller than the best), or `best_size` enabled actions."""
    count = 0
    for v in range(chosen.shape[0]):
        taken = chosen[v] & enabled[v]
        if taken & (red.closing[v] | tried[v]):
            return -1
        count += count_actions(taken)
    while count < best_size:
        t = first_open(chosen, closed, enabled, True)
        if t < 0:
            t = first_open(chosen, closed, enabled, False)
            if t < 0:
                return count
        closed[t // WORD] |= 1 << (t % WORD)
        if (enabled[t // WORD] >> (t % WORD)) & 1:
            adds = red.dependent[t]
        else:
            pick, fewest = -1, 1 << 62
            for q in range(red.needs_ptr[t], red.needs_ptr[t + 1]):
                k = red.needs_idx[q]
                if cmark[k] != mark:
                    cond = red.conditions[k]
                    cval[k] = condition_holds(s, lay, cond[0], cond[1], cond[2], cond[3])
                    cmark[k] = mark
                if not cval[k] and red.condition_sizes[k] < fewest:
                    pick, fewest = k, red.condition_sizes[k]
            adds = red.condition_enablers[pick] if pick >= 0 else red.enablers[t]
        for v in range(chosen.shape[0]):
            new = adds[v] & ~chosen[v]
            if new:
                chosen[v] |= new
                taken = new & enabled[v]
                if taken & (red.closing[v] | tried[v]):
                    return -1
                count += count_actions(taken)
    return -1


@kernel
def stubborn(s, lay, acts, rank, n, red, ws, keep):
    """Mark in keep[0:n] the successors of s (actions acts, in code order by `rank`) that a
    reduced search takes: those of the smallest strong stubborn set found (`checker.kernel.reduction`),
    or all of them. Each enabled action seeds a set, in code order, closed by `close_over`; a set
    it gives up, or one without an enabled action invisible to the checked properties (its key
    action, docs/reduction.md), is not taken. The first smallest set wins: the same on every
    engine. Returns how many successors are kept."""
    for j in range(n):
        keep[j] = True
    if not red.on or n < 2:
        return n
    sets, cmark, cval, stamp = ws
    enabled, chosen, closed, best, tried = sets[0], sets[1], sets[2], sets[3], sets[4]
    codes, words = red.codes, sets.shape[1]
    for w in range(words):
        enabled[w], tried[w] = 0, 0
    for j in range(n):
        i = np.searchsorted(codes, acts[j])
        if i >= codes.shape[0] or codes[i] != acts[j]:  # a step not declared: no reduction here
            return n
        enabled[i // WORD] |= 1 << (i % WORD)
    stamp[0] += 1
    best_size = n
    for jj in range(n):
        seed = np.searchsorted(codes, acts[rank[jj]])
        for w in range(words):
            chosen[w], closed[w] = 0, 0
        chosen[seed // WORD] = 1 << (seed % WORD)
        size = close_over(s, lay, red, chosen, closed, enabled, tried, best_size, cmark, cval, stamp[0])
        key = False
        for w in range(words):
            key |= (chosen[w] & enabled[w] & red.invisible[w]) != 0
        if size < 0 or key:  # a set that takes this seed from now on is given up too
            tried[seed // WORD] |= 1 << (seed % WORD)
        if size >= 0 and key:
            best_size = size
            for w in range(words):
                best[w] = chosen[w] & enabled[w]
            if best_size == 1:
                break
    if best_size < n:
        for j in range(n):
            i = np.searchsorted(codes, acts[j])
            keep[j] = (best[i // WORD] >> (i % WORD)) & 1 == 1
    return best_size


@kernel
def violated_rows(rows, lay, invariant_mask, out):
    """out[i]: the invariants of `invariant_mask` (bits) that the state rows[i] violates."""
    for i in range(rows.shape[0]):
        out[i] = violations(rows[i], lay, invariant_mask)


@kernel
def step(row, lay, code, buf, acts, tally):
    """The successor of `row` by the action with this code (its index in `buf`), or -1
    (`tally` counts the guards, `checker.kernel.guards`)."""
    n = successors(row, lay, buf, acts, tally)
    for j in range(n):
        if acts[j] == code:
            return j
    return -1


@kernel
def count_guards(front, front_fps, lay, buf, acts, guards):
    """Count the guards and events (`guards`, a two-column tally) of the frontier states whose
    fingerprint is a multiple of `GUARD_SAMPLE`, by computing their successors once more: a
    search's sample of its guards, kept out of `expand`, whose compiled loop is slower with a
    counting copy of the actions in it even where that copy never runs."""
    for p in range(front.shape[0]):
        if not front_fps[p] & (GUARD_SAMPLE - 1):
            successors(front[p], lay, buf, acts, guards)


BATCH = 16
"""Frontier states expanded before their successors are looked up in the visited set: the
lookups of a batch are prefetched together, so their cache misses overlap."""


@kernel
def expand(front, front_fps, order, start, lay, perms, invariant_mask, step_mask, seen, shards,
           buf, acts, tally, rank, scratch, batch, batch_fps, batch_codes, batch_parents,
           out, out_fps, out_parent, out_code, out_viol, n_out, fired, enabled, step_fp, step_code, step_parent,
           red, ws, keep):
    """Expand frontier states order[start], order[start+1], ... (ascending fingerprint) until
    the frontier is done, `out` is too full for one more batch or a table of the visited set
    (`shards`, see `visited_set`) is at its load limit.

    Each successor is reduced to its orbit's representative (when `perms` has more than the
    identity), fingerprinted and, unless the set `seen` (read only; no tables: none) holds it,
    added to the visited set; a new one is appended to the `out` arrays
    with its parent's frontier index, its action code and its violated invariants (bits of
    `invariant_mask`). A state's successors are taken in action-code order, so the first route
    to a new state is the smallest (parent fingerprint, action): the engines' tie rule. Every
    step is also checked against the step properties in `step_mask`, keeping per property the
    smallest breaking (parent fingerprint, action). `BATCH` states are expanded into `batch`
    (as representatives), then fingerprinted together (`fingerprints`) and looked up, in the
    same order. Coverage (`checker.coverage`):
    `fired[kind, actor]` counts the steps taken, `enabled[kind, actor]` and
    `enabled[kind, ANY_ACTOR]` the states in which a step of that kind (by that actor) was
    enabled (a state's steps are taken in code order, which groups them by kind, then actor),
    and `tally` the named events of the steps taken (`checker.kernel.guards`; a search counts
    its guards apart, in `count_guards`, so that this loop is the same with and without).
    With a reduction (`red.on`, `checker.kernel.reduction`) only the successors of each state's
    stubborn set (`stubborn`, scratch `ws` and `keep`) are taken; `enabled` still counts every
    enabled step. Returns (next position, n_out, successors generated)."""
    width = front.shape[1]
    room = buf.shape[0] * BATCH
    generated = 0
    i = start
    while i < order.shape[0]:
        if n_out + room > out.shape[0] or any_full(shards):
            break
        m = 0
        end = min(i + BATCH, order.shape[0])
        for ii in range(i, end):
            p = order[ii]
            s = front[p]
            parent_fp = front_fps[p]
            n = successors(s, lay, buf, acts, tally)
            generated += n
            for j in range(n):  # insertion sort of the successors by action code
                rank[j] = j
                k = j
                while k > 0 and acts[rank[k - 1]] > acts[rank[k]]:
                    rank[k - 1], rank[k] = rank[k], rank[k - 1]
                    k -= 1
            if red.on:
                stubborn(s, lay, acts, rank, n, red, ws, keep)
            last_kind, last_actor = -1, -1
            for jj in range(n):
                j = rank[jj]
                code = acts[j]
                kind, actor = code_kind(code), code_actor(code)
                if kind != last_kind:  # codes order by kind, then actor: each group is contiguous
                    enabled[kind, ANY_ACTOR] += 1
                    enabled[kind, actor] += 1
                elif actor != last_actor:
                    enabled[kind, actor] += 1
                last_kind, last_actor = kind, actor
                if red.on and not keep[j]:
                    continue
                fired[kind, actor] += 1
                row = buf[j]
                if step_mask:
                    broken = broken_steps(s, code, row, lay, step_mask)
                    for b in range(step_fp.shape[0]):
                        if (broken >> b) & 1 and (parent_fp < step_fp[b]
                                                  or (parent_fp == step_fp[b] and code < step_code[b])):
                            step_fp[b], step_code[b], step_parent[b] = parent_fp, code, p
                if perms.shape[0] > 1:
                    canonical(row, lay, perms, batch[m], scratch)
                else:
                    for w in range(width):
                        batch[m, w] = row[w]
                batch_codes[m], batch_parents[m] = code, p
                m += 1
        fingerprints(batch, m, batch_fps)
        for q in range(m):
            table = table_of(shards, batch_fps[q])
            prefetch(table, home(table, batch_fps[q]))
            if seen.shape[0]:
                table = table_of(seen, batch_fps[q])
                prefetch(table, home(table, batch_fps[q]))
        for q in range(m):
            if (seen.shape[0] == 0 or not contains(seen, batch_fps[q])) and add(shards, batch_fps[q]):
                for w in range(width):
                    out[n_out, w] = batch[q, w]
                out_fps[n_out] = batch_fps[q]
                out_parent[n_out] = batch_parents[q]
                out_code[n_out] = batch_codes[q]
                out_viol[n_out] = violations(out[n_out], lay, invariant_mask)
                n_out += 1
        i = end
    return i, n_out, generated


@kernel
def walk(row, lay, state, max_depth, weights, invariant_mask, step_mask, buf, acts, tally, allowed, path, fps,
         fired, enabled, first, depth0, steer, climbs, climb_at):
    """One random walk from `row` (copied) for simulation: at each step one of the enabled
    actions is taken, drawn with the generator `state` (`prng.draw`) in two stages: an action
    kind first, among the enabled ones, then one of its steps (so a kind with many instances,
    such as becoming follower in each epoch, does not crowd out the others), each in
    proportion to its weight (`walk_weights`): `weights[kind, 16]` weighs a kind and
    `weights[kind, a]` a step of it whose acting replica (first argument) is a. All ones draw
    uniformly; a kind of weight 0 is never taken (swarm walks). The walk ends at `max_depth`
    steps, in a state where nothing allowed is enabled, or at the first state that violates an
    invariant of `invariant_mask` or step that breaks a property of `step_mask`. The action codes go into `path` and the fingerprints of the states reached
    into `fps`. Coverage (`checker.coverage`) accumulates over walks: `enabled[kind, ANY_ACTOR]`
    counts the steps at which a kind was enabled, `fired[kind, actor]` the steps taken,
    `first[kind, actor]` (and `first[kind, ANY_ACTOR]`) the earliest step number at which one
    was taken (-1: never), and `tally` the guards and events of every step looked at. `row` is
    `depth0` steps from the initial state (a walk may start from an archived state, see
    `checker.simulation.splitting`), and step numbers count from the initial state.

    With `steer` the bit of an invariant that has milestones (-1: none), the walk notes where it
    climbs: the first time it reaches a state whose milestone level is above every level it has
    been at, that state goes into `climbs[level]` and its step number, counted from `row`,
    into `climb_at[level]` (left alone for a level it does not climb to). Returns (steps taken,
    violated invariant bits, broken step-property bits)."""
    s = row.copy()
    v = violations(s, lay, invariant_mask)
    if v:
        return 0, v, 0
    depth = 0
    best = milestone(s, lay, steer) if steer >= 0 else 0
    while depth < max_depth:
        n = successors(s, lay, buf, acts, tally)
        seen = 0  # every kind enabled here (coverage), whatever its weight
        kinds = 0
        total = 0
        for j in range(n):
            kind = code_kind(acts[j])
            if not (seen >> kind) & 1:
                seen |= 1 << kind
                enabled[kind, ANY_ACTOR] += 1
                if weights[kind, 16]:
                    kinds |= 1 << kind
                    total += weights[kind, 16]
        if total == 0:
            break
        state, pick = draw(state, total)
        chosen = 0
        while True:  # the kind whose share of the total holds `pick`
            if (kinds >> chosen) & 1:
                if pick < weights[chosen, 16]:
                    break
                pick -= weights[chosen, 16]
            chosen += 1
        total = 0
        m = 0
        for j in range(n):
            if code_kind(acts[j]) == chosen:
                allowed[m] = j
                total += weights[chosen, code_actor(acts[j])]
                m += 1
        state, pick = draw(state, total)
        j = allowed[0]
        for q in range(m):
            j = allowed[q]
            weight = weights[chosen, code_actor(acts[j])]
            if pick < weight:
                break
            pick -= weight
        broken = broken_steps(s, acts[j], buf[j], lay, step_mask) if step_mask else 0
        actor = code_actor(acts[j])
        fired[chosen, actor] += 1
        for column in (actor, ANY_ACTOR):
            if first[chosen, column] < 0 or depth0 + depth + 1 < first[chosen, column]:
                first[chosen, column] = depth0 + depth + 1
        path[depth] = acts[j]
        for w in range(s.shape[0]):
            s[w] = buf[j, w]
        fps[depth] = fingerprint(s)
        depth += 1
        if steer >= 0:
            level = milestone(s, lay, steer)
            if level > best:
                best = level
                climb_at[level] = depth
                for w in range(s.shape[0]):
                    climbs[level, w] = s[w]
        v = violations(s, lay, invariant_mask)
        if v or broken:
            return depth, v, broken
    return depth, 0, 0
