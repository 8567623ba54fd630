/** @module host/sandbox — sandboxed runs' I/O: the probe, the git shadows, the launch, the sync. */
export { legGit } from "./git_facts.ts";
export { type SandboxLaunch, type SandboxLaunchInput, sandboxLaunch, sandboxSocketPath } from "./launch.ts";
export { clientInSandbox } from "./peer.ts";
export { requireSandboxTools, type SandboxTools } from "./probe.ts";
export { checkSandbox, recordedSandbox, type SandboxAsk } from "./resolve.ts";
export {
  readManifest,
  recordSandboxChild,
  type SandboxSync,
  sandboxEnded,
  sandboxRunIds,
  syncSandbox,
  syncTaskSandboxes,
} from "./sync.ts";
