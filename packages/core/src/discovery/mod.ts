/** @module discovery — find a workspace's sources by reading the filesystem (docs/discover.md). */
export { compareBytewise } from "./compare.ts";
export { discoverSources, discoverSourcesSync, discoverTask, SKIPPED_DIRS } from "./discover.ts";
export { compileGlobs, globToRegExp, matchGlob } from "./glob.ts";
export { kindOfGitFile, parseGitFile } from "./inspect.ts";
export { runAsync, runSync, type SyncReadFs, type Task } from "./io.ts";
export { createLimiter, mapLimit } from "./limit.ts";
export { BadRefError, commonDirOf, type HeadInfo, parsePackedRefs, readHead } from "./refs.ts";
export type { DiscoverOptions, DiscoverWarning, DiscoverWarningCode, Source, SourceKind } from "./types.ts";
