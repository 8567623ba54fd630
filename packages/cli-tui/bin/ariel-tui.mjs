#!/usr/bin/env node
// Thin launcher: the real program is the CommonJS bundle that `npm run build` writes to dist/.
// It is require()d, not imported, for a faster start (scripts/build.mjs says why).
const { createRequire } = process.getBuiltinModule?.("node:module") ?? (await import("node:module"));
createRequire(import.meta.url)("../dist/ariel-tui.cjs");
