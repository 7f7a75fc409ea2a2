// The scheduler's planner (SPEC §2.6): `schedule(input)` and what committing its decisions does.
export * from "./apply";
export * from "./schedule";
