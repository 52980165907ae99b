"""LiveKit's realtime side on top of `rules._analysis`, in the words of `livekit.vocabulary`:

- `sessions`: the realtime side of `livekit.Module` (sessions by names, annotations,
  assignments, aliases and closures; `mirror_snapshots` and `pushes`).
- `pushlock`: a class's push lock, `under_push_lock`, `serialized`, `stale_snapshots`
  (RTL001's defect, which RTL004 does not report again), `lock_takers`, snapshot `flow`.
- `contexts`: the contexts a push sends, the items added to them, commits to a local
  context (RTL002, RTL003).
- `provider`: provider sessions, their mirrors and the push's diff (RTL010, RTL011).
"""
