/** @module fleet — one view over every workspace: snapshot, runs, normalized events (pure). */
export * from "./cursor.ts";
export * from "./events.ts";
export * from "./http.ts";
export * from "./last_line.ts";
export * from "./run_cursor.ts";
export * from "./run_view.ts";
export * from "./snapshot.ts";
