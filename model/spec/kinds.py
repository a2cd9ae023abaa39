"""The `spec` model's action kinds, as the specification names them; an action's code starts
with its kind's index here (see `checker.kernel.steps`)."""

ACTION_KINDS = ("ControllerElectLeader", "ControllerShrinkIsr", "BecomeLeader", "LeaderWrite", "LeaderIncHighWatermark",
                "LeaderShrinkIsr", "LeaderExpandIsr", "FollowerReplicate", "BecomeFollower")
(CONTROLLER_ELECT_LEADER, CONTROLLER_SHRINK_ISR, BECOME_LEADER, LEADER_WRITE, LEADER_INC_HIGH_WATERMARK,
 LEADER_SHRINK_ISR, LEADER_EXPAND_ISR, FOLLOWER_REPLICATE, BECOME_FOLLOWER) = range(len(ACTION_KINDS))
