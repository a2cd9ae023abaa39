"""The faithful `kraft` variants' contract with Kafka, as data (`model.rule_table`): one row per
rule of KRaft's replication (how a voter stands, grants a vote, leads, replicates, counts its HW,
restarts), saying what the model does, which Kafka code does it, and, variant by variant (each
for all the releases it stands for), whether the two agree.

Rows whose `steps` name action kinds are enacted by every step of those kinds; the others are
branches of a step, the path it takes through Kafka's method, that `model.kraft.step_rows`
recognises from the states before and after it. A "deviation" is a step no release of the
variant takes: the model takes none, and a row with `fixed` names one it took before a fix.
The table in docs/models/kraft.md is generated from this module (`python -m
model.kraft.rule_table_docs`), and a test keeps them equal.

Where each was read (`model.citations`): `kip595` at the tag 3.8.0; `kafka39` and `kip853` at
3.9.0-rc3, the last 3.9.0 release candidate in the clone read (the raft module is 3.9.0's). No
4.0.0 tag was read: `kafka40`'s `KafkaRaftClient`, `ProspectiveState` and `ResignedState` were
read at commit 53364c5 of the 4.0 branch, whose gradle.properties says 4.0.0; `FollowerState` at
trunk e6d2421 (December 2024, before `ProspectiveState` was added, so not yet keeping a vote);
`QuorumState` and `CandidateState` in copies of unknown commit that have every method (and
constructor) 53364c5's `KafkaRaftClient` and `ProspectiveState` call on them, which the sources
say as "in a copy of unknown commit".
"""

from __future__ import annotations

from ..rule_table import ABSTRACTION, AS_KAFKA, DEVIATION, MISSING, Columns
from .rules import VARIANTS

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

FAITHFUL = tuple(VARIANTS)
"""The variants a row judges, oldest first."""

COLUMNS = Columns(FAITHFUL, {})
"""A status names faithful variants, separated by spaces, or "all"."""

_row = COLUMNS.row


NO_PRE_VOTE = (DEVIATION, "kip595 kafka39 kip853", "3.x has no pre-vote: its variants never send one")
"""The status of a pre-vote's rows under the 3.x variants."""

ROWS = (
    _row("stand", "standing for election", "election",
         "`vote`: a voter that does not lead (unattached, voted, follower, candidate, resigned) times out and becomes "
         "a candidate in the next epoch, voting for itself, written to its quorum-state file; `pre-vote`: it becomes "
         "a prospective in its own epoch instead (nothing written), keeping the epoch's leader and its vote, and a "
         "candidate may become a candidate again only through a prospective; a resigned voter goes unattached to the "
         "next epoch; a controller outside its own voter set (an observer) never stands",
         "`KafkaRaftClient.pollUnattached`, `KafkaRaftClient.pollFollowerAsVoter`, `KafkaRaftClient.pollCandidate`, "
         "`KafkaRaftClient.pollResigned`, `QuorumState.transitionToCandidate` @ 3.8.0, 3.9.0-rc3; "
         "`KafkaRaftClient.pollVoted` @ 3.8.0; `KafkaRaftClient.pollUnattachedAsVoter`, "
         "`KafkaRaftClient.pollFollowerAsVoter`, `KafkaRaftClient.pollCandidate`, `KafkaRaftClient.pollResigned`, "
         "`KafkaRaftClient.transitionToProspective`, `KafkaRaftClient.onBecomeProspective` @ 53364c5 (4.0 branch, not a tag); "
         "`QuorumState.transitionToProspective`, `QuorumState.transitionToCandidate` in a copy of unknown commit",
         (ABSTRACTION, "kip595 kafka39 kip853", "no clocks: any of them may time out at any moment, which covers every "
          "setting of the election and fetch timeouts; a candidate's backoff and its next candidacy are one step"),
         (ABSTRACTION, "kafka40 kafka40-static", "no clocks, as before; a candidate's backoff and its next pre-vote round are one "
          "step"),
         steps=("Timeout",)),
    _row("pre-vote", "a prospective's pre-vote", "election",
         "`pre-vote`: a prospective counts each answer to its pre-vote requests; granted a majority, it stands as a "
         "candidate in the next epoch; refused by a majority, or its election timer run out first, it goes back, in "
         "its epoch, to following the leader it knows if its voter set names it, else to unattached, keeping its vote",
         "`KafkaRaftClient.handleVoteResponse`, `KafkaRaftClient.maybeHandleElectionLoss`, "
         "`KafkaRaftClient.pollProspective`, `KafkaRaftClient.prospectiveTransitionAfterElectionLoss`, "
         "`ProspectiveState.election` @ 53364c5 (4.0 branch, not a tag)",
         (AS_KAFKA, "kip595 kafka39 kip853", "no pre-vote: 3.x stands at once"),
         (ABSTRACTION, "kafka40 kafka40-static", "the election timer may run out at any moment; the fallback for a voter without "
          "Vote v2 (UNSUPPORTED_VERSION: stand at once) is left out, every controller runs 4.0"),
         steps=("ProspectiveTimeout",)),
    _row("ask-votes", "asking for votes", None,
         "a candidate's poll sends a Vote request, with its last epoch and LEO, to every voter it has no answer from "
         "and no request in flight to, as long as a majority has not refused it; a prospective's sends a pre-vote "
         "request (a Vote request with PreVote set) in its own epoch",
         "`KafkaRaftClient.maybeSendVoteRequests`, `KafkaRaftClient.buildVoteRequest` @ 3.8.0, 3.9.0-rc3, 53364c5 (4.0 "
         "branch, not a tag)",
         (AS_KAFKA, "all", ""),
         steps=("SendVoteRequests",)),
    _row("grant-vote", "granting a vote", None,
         "a request of an older epoch is answered FENCED_LEADER_EPOCH; a newer epoch makes the voter unattached in "
         "it first, even if it then refuses; an unattached voter grants if the candidate's (last epoch, LEO) is at "
         "least its own, a voted one only to the candidate it voted for, without looking at logs again, any other "
         "role never; a grant is written to the quorum-state file before the answer",
         "`KafkaRaftClient.handleVoteRequest`, `QuorumState.canGrantVote`, `UnattachedState.canGrantVote`, "
         "`VotedState.canGrantVote` (3.8), `QuorumState.transitionToVoted` @ 3.8.0; "
         "`QuorumState.transitionToUnattachedVotedState` @ 3.9.0-rc3; `KafkaRaftClient.handleVoteRequest`, "
         "`ProspectiveState.canGrantVote`, `ResignedState.canGrantVote` @ 53364c5 (4.0 branch, not a tag); `FollowerState.canGrantVote` "
         "@ e6d2421 (trunk of December 2024, before ProspectiveState, not a tag); `QuorumState.canGrantVote`, "
         "`QuorumState.unattachedOrProspectiveCanGrantVote`, `QuorumState.unattachedAddVotedState`, "
         "`QuorumState.prospectiveAddVotedState`, `CandidateState.canGrantVote` in a copy of unknown commit",
         (AS_KAFKA, "kip595 kafka39 kip853", "3.9 keeps a vote as an unattached state with a voted key, which the "
          "model names voted"),
         (AS_KAFKA, "kafka40 kafka40-static", "a pre-vote is granted by any role but a leader if the log is up to date, by a follower "
          "only before its leader first answered its FETCH (`hasFetchedFromLeader`), and writes nothing; a "
          "prospective grants real votes as an unattached voter does; granting does not reset connections; "
          "`FollowerState` was read in a version of late 2024 (trunk e6d2421), not at the tag"),
         steps=("HandleVoteRequest",)),
    _row("vote-error", "a Vote request answered with an error", None,
         "a Vote or pre-vote request of an epoch older than the voter's is answered FENCED_LEADER_EPOCH; under "
         "KIP-853 one addressed to a directory id the voter no longer has is answered INVALID_VOTER_KEY, after a newer "
         "epoch made the voter unattached in it",
         "`KafkaRaftClient.handleVoteRequest`, `KafkaRaftClient.validateVoterOnlyRequest` @ 3.8.0, 3.9.0-rc3; "
         "`KafkaRaftClient.isValidVoterKey` @ 3.9.0-rc3",
         (AS_KAFKA, "all", "")),
    _row("vote-granted", "a vote granted", None,
         "`canGrantVote` of the voter's role, after a newer epoch made it unattached: an unattached voter that has "
         "not voted and knows no leader grants a candidate whose (last epoch, LEO) is at least its own, a voted one "
         "(from 4.0 also a prospective that voted) only the candidate it voted for; the grant is written before the "
         "answer",
         "`KafkaRaftClient.handleVoteRequest`, `UnattachedState.canGrantVote`, `VotedState.canGrantVote` @ 3.8.0; "
         "`KafkaRaftClient.handleVoteRequest`, `UnattachedState.canGrantVote` @ 3.9.0-rc3",
         (AS_KAFKA, "all", "")),
    _row("vote-refused", "a vote refused", None,
         "`canGrantVote` says no: the voter leads, follows, stands or resigned, voted for another candidate, knows "
         "the epoch's leader, or the candidate's (last epoch, LEO) is behind its own",
         "`FollowerState.canGrantVote`, `CandidateState.canGrantVote`, `LeaderState.canGrantVote`, "
         "`ResignedState.canGrantVote`, `UnattachedState.canGrantVote`, `VotedState.canGrantVote` @ 3.8.0; "
         "`UnattachedState.canGrantVote` @ 3.9.0-rc3",
         (AS_KAFKA, "all", "")),
    _row("pre-vote-granted", "a pre-vote granted", None,
         "a pre-vote (4.0), in the prospective's own epoch, is granted when its log is at least as up to date, by any "
         "role but a leader, and by a follower only before its leader first answered its FETCH; nothing is written",
         "`FollowerState.canGrantVote`, `CandidateState.canGrantVote`, `ResignedState.canGrantVote`, "
         "`UnattachedState.canGrantVote`, `KafkaRaftClient.handleVoteRequest` @ e6d2421 (trunk, not a tag)",
         NO_PRE_VOTE, (AS_KAFKA, "kafka40 kafka40-static", "")),
    _row("pre-vote-refused", "a pre-vote refused", None,
         "a pre-vote is refused by a leader, by a follower whose leader has answered its FETCH, or for a log less up "
         "to date than the voter's",
         "`LeaderState.canGrantVote`, `FollowerState.canGrantVote`, `UnattachedState.canGrantVote` @ e6d2421 (trunk, "
         "not a tag)",
         NO_PRE_VOTE, (AS_KAFKA, "kafka40 kafka40-static", "")),
    _row("pre-vote-granted-after-fetch", "a pre-vote granted by a follower that has fetched", None,
         "a follower whose leader answered its FETCH (`hasFetchedFromLeader`) granted a pre-vote: Kafka refuses it, "
         "so that a voter in touch with a working leader does not help another stand; the model never takes this "
         "step",
         "`FollowerState.canGrantVote`, `FollowerState.resetFetchTimeoutForSuccessfulFetch`, "
         "`KafkaRaftClient.handleFetchResponse` @ e6d2421 (trunk, not a tag)",
         NO_PRE_VOTE, (DEVIATION, "kafka40 kafka40-static", "4.0's follower refuses a pre-vote once its leader answered a "
                       "FETCH")),
    _row("vote-unlike-kafka", "a Vote answer Kafka does not give", None,
         "the answer differs from `canGrantVote`'s (or the error Kafka sends) for the voter's role, vote, known "
         "leader and log in the state it was handled in; the model never takes this step",
         "`KafkaRaftClient.handleVoteRequest` @ 3.8.0, 3.9.0-rc3; `QuorumState.canGrantVote` @ 3.8.0, 3.9.0-rc3",
         (DEVIATION, "all", "no release answers so")),
    _row("win", "winning an election", None,
         "a candidate counts each answer; granted a majority of the voters, it leads at once, its epoch starting at "
         "its LEO, with no HW yet; refused by a majority, it waits for its backoff; a prospective (`pre-vote`) counts "
         "its pre-votes the same way and, granted a majority, stands as a candidate in the next epoch",
         "`KafkaRaftClient.handleVoteResponse`, `KafkaRaftClient.maybeTransitionToLeader`, "
         "`KafkaRaftClient.onBecomeLeader`, `QuorumState.transitionToLeader` @ 3.8.0, 3.9.0-rc3; "
         "`KafkaRaftClient.maybeTransitionForward`, `KafkaRaftClient.maybeHandleElectionLoss`, "
         "`KafkaRaftClient.onBecomeLeader` @ 53364c5 (4.0 branch, not a tag)",
         (AS_KAFKA, "all", ""),
         steps=("HandleVoteResponse",)),
    _row("leader-change-record", "the epoch's first record", None,
         "a new leader appends a LeaderChange control record at its epoch's start offset before any client value; "
         "under KIP-853 a leader whose log holds no VotersRecord yet (its set came from the bootstrap checkpoint) "
         "appends a VotersRecord of that set in the same batch, one log entry",
         "`LeaderState.appendLeaderChangeMessage`, `KafkaRaftClient.pollLeader` @ 3.8.0; "
         "`LeaderState.appendStartOfEpochControlRecords` @ 3.9.0-rc3",
         (AS_KAFKA, "kip595 kafka39 kafka40-static", ""),
         (AS_KAFKA, "kip853 kafka40", "the KRaftVersion record that rides in the same batch is left out: the model has one "
          "kraft.version"),
         steps=("AppendLeaderChange",)),
    _row("voter-set", "who the voters are", None,
         "static voters (`voter-key` id): every controller, by node id, forever; KIP-853: a controller's voter set is "
         "the last VotersRecord in its own log, committed or not, else the bootstrap checkpoint's if it still has "
         "the disk that was formatted with one, else none; it adopts a change as the record is appended and drops "
         "it when the record is truncated; it is a voter only with the directory id the set names, else an observer",
         "`KRaftControlRecordStateMachine.lastVoterSet`, `KRaftControlRecordStateMachine.updateState`, "
         "`VoterSetHistory.lastValue`, `QuorumState.isVoter`, `VoterSet.isVoter` @ 3.9.0-rc3",
         (AS_KAFKA, "all", "a controller formatted with --no-initial-controllers (`--spares`, or back on a new disk "
          "under the default `--reformat`) has no bootstrap checkpoint; one formatted with --initial-controllers "
          "again has it"),
         steps=("AddVoter", "RemoveVoter", "AppendLeaderChange", "HandleFetchResponse")),
    _row("begin-quorum", "announcing the leader", "begin-quorum",
         "`until-acknowledged`: BeginQuorumEpoch to each voter that has not acknowledged the epoch by an answer or a "
         "FETCH; `periodic`: to every voter, again and again; a voter of an older or equal epoch follows the leader "
         "(`maybeTransition`), one of a newer epoch answers FENCED_LEADER_EPOCH",
         "`KafkaRaftClient.handleBeginQuorumEpochRequest`, `KafkaRaftClient.handleBeginQuorumEpochResponse` @ "
         "3.8.0, 3.9.0-rc3; `KafkaRaftClient.maybeSendRequests` to `LeaderState.nonAcknowledgingVoters` @ 3.8.0; "
         "`KafkaRaftClient.maybeSendBeginQuorumEpochRequests` @ 3.9.0-rc3",
         (ABSTRACTION, "all", "the 3.9 timer is a step that may come at any moment"),
         steps=("SendBeginQuorumEpoch", "HandleBeginQuorumEpoch", "HandleBeginQuorumEpochResponse")),
    _row("fetch", "answering a FETCH", None,
         "an older epoch is answered FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH, a non-leader "
         "NOT_LEADER_OR_FOLLOWER; a position the leader's log does not continue gets the diverging epoch (the "
         "epoch cache's end of the follower's last epoch); else every record from the fetch offset on, and the "
         "leader's HW; a follower fetches from its leader, an unattached observer (KIP-853), and from 4.0 any "
         "unattached voter, from any other controller, its bootstrap servers, when it has no request in flight; "
         "before 4.0 an unattached voter never fetches",
         "`KafkaRaftClient.handleFetchRequest`, `KafkaRaftClient.tryCompleteFetchRequest`, "
         "`KafkaRaftClient.validateLeaderOnlyRequest`, "
         "`ReplicatedLog.validateOffsetAndEpoch`, `KafkaMetadataLog.endOffsetForEpoch`, "
         "`LeaderEpochFileCache.endOffsetFor` @ 3.8.0, 3.9.0-rc3; `KafkaRaftClient.pollUnattachedAsObserver`, "
         "`KafkaRaftClient.pollFollowerAsObserver`, `KafkaRaftClient.maybeSendAnyVoterFetch`, "
         "`RequestManager.findReadyBootstrapServer` @ 3.9.0-rc3; `KafkaRaftClient.pollUnattachedCommon`, "
         "`KafkaRaftClient.maybeSendFetchToAnyBootstrap`, `KafkaRaftClient.handleFetchRequest` @ 53364c5 (4.0 branch, not a tag)",
         (ABSTRACTION, "all", "every record fits in one answer (Kafka's is up to 8 MiB); no "
          "snapshots; an observer that follows a leader fetches only from it (Kafka turns to its bootstrap servers "
          "after a fetch timeout)"),
         steps=("SendFetch", "HandleFetchRequest")),
    _row("fetch-error", "a FETCH answered with an error", None,
         "a FETCH of an older epoch is answered FENCED_LEADER_EPOCH, of a newer one UNKNOWN_LEADER_EPOCH, by a "
         "voter that does not lead NOT_LEADER_OR_FOLLOWER, at once",
         "`KafkaRaftClient.handleFetchRequest` (\"Reply immediately if ... the response contains an error\"), "
         "`KafkaRaftClient.validateLeaderOnlyRequest` @ 3.3.0, 3.8.0, 3.9.0-rc3",
         (AS_KAFKA, "all", "")),
    _row("fetch-diverging", "a FETCH answered with a diverging epoch", None,
         "a FETCH whose position the leader's log does not continue is answered at once with where the "
         "follower's last epoch ends in the leader's log",
         "`KafkaRaftClient.handleFetchRequest` (`isPartitionDiverged`), `KafkaRaftClient.tryCompleteFetchRequest` "
         "@ 3.6.0, 3.8.0, 3.9.0-rc3; `KafkaRaftClient.handleFetchRequest` @ 3.3.0 (no such case)",
         (ABSTRACTION, "kip595", "3.3 to 3.5 park it like an empty answer (KAFKA-15100 answers it at once from "
          "3.6.0) and send it when the leader's log reaches its offset or fetch.max.wait.ms runs out, computed "
          "again then: the model sends the answer of that moment at once, the same answer while nothing changed"),
         (AS_KAFKA, "kafka39 kip853 kafka40 kafka40-static", "")),
    _row("fetch-records", "a FETCH answered with records", None,
         "a FETCH from below the leader's LEO, at a position its log continues, is answered at once with every "
         "record from its offset on (flushed or not) and the leader's HW",
         "`KafkaRaftClient.handleFetchRequest` (\"There are records in the response\"), "
         "`KafkaRaftClient.tryCompleteFetchRequest` (`Isolation.UNCOMMITTED`) @ 3.3.0, 3.8.0, 3.9.0-rc3",
         (AS_KAFKA, "all", "")),
    _row("fetch-nothing-new", "a FETCH that finds nothing new", None,
         "a FETCH from the leader's LEO is answered at once with no records and the leader's HW, its offset "
         "counted; one in flight when the leader appends is parked instead (`fetch-parked`)",
         "`KafkaRaftClient.handleFetchRequest` (`fetchPurgatory.await` for `maxWaitMs`, on expiry the response "
         "computed on arrival), `ThresholdPurgatory.maybeComplete` @ 3.6.0, 3.8.0, 3.9.0-rc3",
         (ABSTRACTION, "all", "Kafka parks it until the leader's LEO passes its offset or fetch.max.wait.ms (500 "
          "ms) runs out, and on expiry sends this answer (3.3 to 3.5 compute it again then): the model has no "
          "clocks, so the wait may end at once; the wait that ends with an append is `fetch-parked`")),
    _row("fetch-parked", "a parked FETCH completed by an append", None,
         "a FETCH that found nothing new (of the leader's epoch, from its LEO, at a position its log continues) is "
         "parked when the leader appends, and may be answered before the flush, with the records just appended",
         "`KafkaRaftClient.handleFetchRequest` (`fetchPurgatory.await`, then `tryCompleteFetchRequest` again), "
         "`KafkaRaftClient.flushLeaderLog`, `KafkaRaftClient.updateLeaderEndOffsetAndTimestamp` "
         "(`fetchPurgatory.maybeComplete` before `log.flush`), `ThresholdPurgatory.maybeComplete` @ 3.3.0, 3.6.0, "
         "3.8.0, 3.9.0-rc3",
         (AS_KAFKA, "all", "")),
    _row("fetch-unparked-before-flush", "a FETCH Kafka does not park answered before the flush", None,
         "a FETCH Kafka answers at once (records below the leader's LEO, or an error) was marked parked at an "
         "append, and answered between the append and the flush, with records not yet flushed; now only the "
         "FETCHes Kafka parks are",
         "`KafkaRaftClient.handleFetchRequest` (\"Reply immediately if any of the following is true\") @ 3.3.0, "
         "3.6.0, 3.8.0, 3.9.0-rc3; `KafkaRaftClient.poll` (the state's poll, `flushLeaderLog` included, before the "
         "next message) @ 3.8.0",
         (DEVIATION, "all", "Kafka answers such a FETCH when it handles it, before the append (without the new "
          "records) or at a poll after the flush"),
         fixed="`fetching.begin_flush` marks only the FETCHes `fetching.parks` says Kafka parks"),
    _row("high-watermark", "the leader's HW", "commit-rule",
         "the end offsets of the voters of the leader's latest set, committed or not (each follower's last fetch "
         "offset, the leader's own LEO as it last counted it, if it is in the set), sorted from the highest: the one "
         "at index n/2 becomes the HW if it passes the HW and (`epoch-start`) the epoch's start offset; `majority` "
         "(no release) drops that second condition; a client value is acknowledged when the HW passes it; the leader "
         "keeps every replica key's fetch offset, but an observer's fetches move nothing",
         "`LeaderState.maybeUpdateHighWatermark`, `LeaderState.updateReplicaState`, `LeaderState.updateLocalState`, "
         "`KafkaRaftClient.onUpdateLeaderHighWatermark` @ 3.8.0, 3.9.0-rc3; "
         "`LeaderState.updateVoterAndObserverStates` @ 3.9.0-rc3",
         (AS_KAFKA, "all", ""),
         steps=("HandleFetchRequest", "AppendLeaderChange", "ClientAppend", "AddVoter", "RemoveVoter")),
    _row("leader-flush", "the leader's append and flush", None,
         "the leader appends (a client value, its LeaderChange record), counts its new LEO, and only then flushes; "
         "between the two it answers only the FETCHes parked at it (those that found nothing new before the "
         "append) and may crash, nothing else: any other FETCH is handled at a later poll, after the flush",
         "`KafkaRaftClient.appendBatch`, `KafkaRaftClient.flushLeaderLog` (\"We update the end offset before flushing so that "
         "parked fetches can return sooner\"), `KafkaRaftClient.poll` (the state's poll, then the next message) @ 3.8.0, "
         "3.9.0-rc3, 53364c5 (4.0 branch, not a tag)",
         (AS_KAFKA, "all", "one client value per append; Kafka drains a batch"),
         steps=("ClientAppend", "AppendLeaderChange", "Flush")),
    _row("follower-append", "a follower's append", None,
         "a follower notes (4.0) that its leader answered, then, told it diverges, truncates where its own epoch "
         "cache says (below its HW Kafka throws); sent "
         "records, it appends and flushes them, and takes the leader's HW up to its own LEO (a lower HW than it has "
         "throws)",
         "`KafkaRaftClient.handleFetchResponse`, `KafkaRaftClient.appendAsFollower`, "
         "`KafkaRaftClient.updateFollowerHighWatermark`, "
         "`FollowerState.updateHighWatermark`, `ReplicatedLog.truncateToEndOffset` @ 3.8.0, 3.9.0-rc3; "
         "`KafkaRaftClient.handleFetchResponse` @ 53364c5 (4.0 branch, not a tag); `FollowerState.resetFetchTimeoutForSuccessfulFetch` @ "
         "e6d2421 (trunk of December 2024, before ProspectiveState, not a tag)",
         (ABSTRACTION, "all", "append and flush are one step: a crash between them loses only records the follower "
          "had not acknowledged"),
         steps=("HandleFetchResponse",)),
    _row("truncation-below-hw", "a truncation below the HW", None,
         "a follower told it diverges below its HW, or whose own epoch cache cuts its log below it, takes no step: "
         "Kafka throws (the voter is illegal, `no-illegal-state`)",
         "`KafkaRaftClient.handleFetchResponse` (a diverging offset below the HW), `ReplicatedLog.truncateToEndOffset` "
         "@ 3.8.0, 3.9.0-rc3; `KafkaMetadataLog.truncateTo` (below the log's HW: IllegalArgumentException) @ 3.3.0, "
         "3.8.0, 3.9.0-rc3",
         (AS_KAFKA, "all", "the HW checked is the role's; the log's own is left out (`not-modelled`)")),
    _row("responses", "hearing an epoch in an answer", None,
         "an answer of an older epoch or UNKNOWN_LEADER_EPOCH is ignored; a newer epoch, FENCED_LEADER_EPOCH or "
         "NOT_LEADER_OR_FOLLOWER moves the voter (follower of the leader named, else unattached); a leader named "
         "in its own epoch makes it a follower; two leaders of one epoch throw",
         "`KafkaRaftClient.maybeHandleCommonResponse`, `KafkaRaftClient.maybeTransition`, "
         "`KafkaRaftClient.hasConsistentLeader`, "
         "`QuorumState.transitionToFollower` @ 3.8.0, 3.9.0-rc3; `KafkaRaftClient.maybeHandleCommonResponse`, "
         "`KafkaRaftClient.maybeTransition`, `KafkaRaftClient.hasConsistentLeader` @ 53364c5 (4.0 branch, not a tag); "
         "`QuorumState.transitionToFollower` in a copy of unknown commit",
         (AS_KAFKA, "all", "from 4.0 a voter that becomes a follower in its epoch keeps its vote"),
         steps=("HandleVoteResponse", "HandleBeginQuorumEpochResponse", "HandleFetchResponse")),
    _row("connections", "requests and answers", None,
         "one request in flight per pair of voters; every change of role or epoch, and a restart, resets a voter's "
         "connections, so the answers to its earlier requests are dropped; granting a vote does not; a request in "
         "flight still arrives",
         "`KafkaRaftClient.resetConnections` (on every transition), `RequestManager.isResponseExpected` @ 3.8.0, "
         "3.9.0-rc3; `KafkaRaftClient.resetConnections`, `KafkaRaftClient.handleInboundMessage` "
         "(`isResponseExpected`) @ 53364c5 (4.0 branch, not a tag)",
         (ABSTRACTION, "all", "nothing is lost in flight and requests do not time out: a request not answered yet "
          "is one not handled yet"),
         steps=("SendVoteRequests", "SendBeginQuorumEpoch", "SendFetch", "HandleVoteRequest", "HandleVoteResponse",
                "HandleBeginQuorumEpoch", "HandleBeginQuorumEpochResponse", "HandleFetchRequest",
                "HandleFetchResponse")),
    _row("restart", "restarting", None,
         "a crash loses the unflushed tail of the log, the HW and what the role kept in memory; the voter comes "
         "back from its quorum-state file: a leader resigned in its epoch, a voter that voted for itself a candidate "
         "again, one that knows a leader its follower (but unattached, knowing the leader and granting no vote, if "
         "its voter set no longer has that leader), keeping its vote from 4.0, a voter voted, unattached in the "
         "log's last epoch if the file's is older; a prospective's file is that of the role it came from",
         "`QuorumState.initialize`, `FileQuorumStateStore.writeElectionState` (fsync, atomic rename) @ 3.8.0, "
         "3.9.0-rc3; `QuorumState.initialize` in a copy of unknown commit",
         (AS_KAFKA, "all", "a resigned voter does not send EndQuorumEpoch (it only speeds up the next election)"),
         steps=("Restart",)),
    _row("lost-disk", "a voter on a new disk", "voter-key",
         "`id`: the voter comes back unattached in epoch 0 with an empty log and is the same voter, so it may vote "
         "again in an epoch where it voted; `directory`: its directory id is the one `kafka-storage format` gives "
         "the new disk (`--reformat`): with `--no-initial-controllers` (the default, as Kafka's docs format a "
         "controller joining a running cluster) a new one and no bootstrap checkpoint, an observer: it never "
         "stands, requests for its old key are refused INVALID_VOTER_KEY, its fetches do not count (a FETCH counts "
         "for the replica key it carries: one sent before the disk was lost still counts); with "
         "`--initial-controllers`, the first format command again, a bootstrap voter gets the directory id that "
         "list names for it and the bootstrap checkpoint, and is the same voter, as under `id` (a spare, first "
         "formatted with `--no-initial-controllers`, gets a new id either way)",
         "`QuorumState.initialize` (no file: epoch 0), `QuorumState.isVoter` by id @ 3.8.0; "
         "`KafkaRaftClient.isValidVoterKey`, `KafkaRaftClient.handleVoteRequest`, "
         "`KafkaRaftClient.handleBeginQuorumEpochRequest`, `KafkaRaftClient.handleFetchRequest` (the FETCH's "
         "replica key), `LeaderState.updateReplicaState` (observers), `Formatter.doFormat`, "
         "`Formatter.DirectoryType.calculate`, `Formatter.writeDynamicQuorumSnapshot`, "
         "`StorageTool.runFormatCommand`, `SharedServer.start` (the metadata directory's id is the node's), "
         "`KRaftControlRecordStateMachine.maybeLoadSnapshot` @ 3.9.0-rc3; `Formatter.doFormat` the same at trunk "
         "commit 1eb7644 (not a tag)",
         (AS_KAFKA, "all", ""),
         steps=("LoseDisk",)),
    _row("add-voter", "adding a voter", "voter-change-guard",
         "an operator's AddVoter to the leader: (`committed`) it must have a HW in its epoch, the last VotersRecord "
         "in its log committed and no change pending (`none`, no release, drops these), and the node id must not be "
         "a voter; it appends a VotersRecord of its set with the controller's key (node id, directory id it has "
         "now), which is its set from then on",
         "`KafkaRaftClient.handleAddVoterRequest`, `AddVoterHandler.handleAddVoterRequest`, "
         "`AddVoterHandler.handleApiVersionsResponse`, `LeaderState.appendVotersRecord`, `VoterSet.addVoter` @ "
         "3.9.0-rc3",
         (AS_KAFKA, "kip595 kafka39 kafka40-static", "no AddVoter: 3.8 has no such request, and 3.9 on kraft.version 0 refuses it "
          "(UNSUPPORTED_VERSION); --max-voter-changes needs kip853"),
         (ABSTRACTION, "kip853 kafka40", "request, API_VERSIONS exchange and append are one step, and the new voter need "
          "not be caught up (`LeaderState.isReplicaCaughtUp`): both only delay a change, so the model takes every "
          "change Kafka does and more"),
         steps=("AddVoter",)),
    _row("remove-voter", "removing a voter", "voter-change-guard",
         "an operator's RemoveVoter to the leader, under the same conditions, of a voter's exact key while another "
         "voter remains, the leader itself included: it appends a VotersRecord without it at once, and the change "
         "stays pending until the HW passes that record",
         "`KafkaRaftClient.handleRemoveVoterRequest`, `RemoveVoterHandler.handleRemoveVoterRequest`, "
         "`VoterSet.removeVoter`, `LeaderState.appendVotersRecord` @ 3.9.0-rc3",
         (AS_KAFKA, "kip595 kafka39 kafka40-static", "no RemoveVoter (as for AddVoter)"),
         (AS_KAFKA, "kip853 kafka40", ""),
         steps=("RemoveVoter",)),
    _row("resign", "a leader removed", None,
         "a leader that removed itself leads on without counting itself; once the HW passes the record it is asked "
         "to resign and resigns at its next poll, before it handles anything (in memory: the quorum-state file "
         "still names it leader); a resigned controller outside its voter set (from 4.0 any resigned controller), its "
         "election timer run out, goes unattached to the next epoch",
         "`RemoveVoterHandler.highWatermarkUpdated`, `LeaderState.requestResign`, `KafkaRaftClient.pollLeader`, "
         "`KafkaRaftClient.pollResigned` @ 3.9.0-rc3; `KafkaRaftClient.onUpdateLeaderHighWatermark`, "
         "`KafkaRaftClient.pollLeader`, `KafkaRaftClient.pollResigned` @ 53364c5 (4.0 branch, not a tag)",
         (AS_KAFKA, "kip595 kafka39 kafka40-static", "no RemoveVoter"),
         (ABSTRACTION, "kip853 kafka40", "a pending removal never expires: in Kafka one that expires before its record is "
          "committed leaves the leader leading outside its voter set, a behaviour the model does not take"),
         steps=("Resign", "ResignedTimeout")),
    _row("not-modelled", "what the model leaves out", None,
         "check-quorum (a leader that hears from no majority resigns), EndQuorumEpoch, snapshots, UpdateVoter (a "
         "voter's endpoints), brokers (observers of the metadata log that are not controllers), request timeouts "
         "(after which a 4.0 follower asks another controller), the log's own HW apart from the role's (a voter keeps "
         "it through a leadership that set none, and `KafkaMetadataLog.truncateTo` throws on a cut below it)",
         "`LeaderState.timeUntilCheckQuorumExpires` (check-quorum), `KafkaRaftClient.pollResigned` "
         "(EndQuorumEpoch) @ 3.8.0, 3.9.0-rc3; `UpdateVoterHandler.handleUpdateVoterRequest` @ 3.9.0-rc3; "
         "`KafkaRaftClient.maybeSendFetchToBestNode` (a follower whose FETCH timed out asks a bootstrap server) "
         "@ 53364c5 (4.0 branch, not a tag); `KafkaMetadataLog.truncateTo`, `QuorumState.transitionToLeader` (a "
         "`LeaderState` without a HW) @ 3.8.0",
         (MISSING, "all", "a leader that steps down by itself is a behaviour these releases have and the model does "
          "not take; UpdateVoter keeps the voters and their directory ids, so it changes nothing the model "
          "holds, and brokers never vote or count; the log's HW passes the role's only where a leader elected "
          "without a record the HW passed truncates a voter, after a lost committed record")),
)
"""The rows, in the order the docs show them."""

BY_KEY = {row.key: row for row in ROWS}
"""The rows by key."""

