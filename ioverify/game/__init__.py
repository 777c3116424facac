"""The red-blue pebble game: rules, schedules, the independent replayer and exhaustive search."""

from ioverify.game.replay import ReplayResult, replay
from ioverify.game.rules import (COMPUTE, DELETE, LOAD, STORE, VARIANTS, Schedule, infeasibility,
                                 read_schedule, schedule_from_dict, schedule_from_json)

__all__ = ["COMPUTE", "DELETE", "LOAD", "STORE", "VARIANTS", "ReplayResult", "Schedule",
           "infeasibility", "read_schedule", "replay", "schedule_from_dict", "schedule_from_json"]
