/** @module discovery — find a workspace's sources by reading the filesystem (DESIGN.md §3). */
export { compareBytewise } from "./compare.ts";
export { discoverSources, SKIPPED_DIRS } from "./discover.ts";
export { compileGlobs, globToRegExp, matchGlob } from "./glob.ts";
export { kindOfGitFile, parseGitFile } from "./inspect.ts";
export { createLimiter, mapLimit } from "./limit.ts";
export { BadRefError, commonDirOf, type HeadInfo, parsePackedRefs, readHead } from "./refs.ts";
export type { DiscoverOptions, DiscoverWarning, DiscoverWarningCode, Source, SourceKind } from "./types.ts";
