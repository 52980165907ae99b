"""The registry of scenarios run.py can run, by name."""

from __future__ import annotations

import s7880
import s7906
import s_app
import s_never_played

SCENARIOS = {
    "7880_tool_output": s7880.tool_output,
    "7880_interrupted_tool_output": s7880.interrupted_tool_output,
    "7880_replace_then_append": s7880.replace_then_append,
    "7906_copy_in_flight_apply_after": s7906.copy_in_flight_apply_after,
    "7906_copy_and_apply_in_flight": s7906.copy_and_apply_in_flight,
    "7906_push_fails": s7906.push_fails,
    "never_played_abandoned": s_never_played.abandoned_after_played,
    "never_played_cleanup_then_late_tool": s_never_played.cleanup_then_late_tool_output,
    "app_realtime_memory_writeback": s_app.realtime_memory_writeback,
    "app_pipeline_rag_writeback": s_app.pipeline_rag_writeback,
    "app_detached_push_then_reply": s_app.detached_push_then_reply,
}
