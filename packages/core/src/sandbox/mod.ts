/** @module sandbox — the pure half of sandboxed runs: settings, mounts, git shadows, the sync's plans. */

export * from "./digest.ts";
export * from "./git_shadow.ts";
export * from "./legs.ts";
export * from "./manifest.ts";
export * from "./mounts.ts";
export * from "./paths.ts";
export * from "./peer.ts";
export * from "./ref_sync.ts";
export * from "./report.ts";
export * from "./settings.ts";
export * from "./state_sync.ts";
export * from "./writable.ts";
