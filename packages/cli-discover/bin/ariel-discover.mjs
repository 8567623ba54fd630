#!/usr/bin/env node
// Thin launcher: the real program is the CommonJS bundle that `npm run build` writes to dist/.
// It is require()d, not imported, for a faster start (scripts/build.mjs says why).
const v8 = process.getBuiltinModule?.("node:v8") ?? (await import("node:v8"));
const { createRequire } = process.getBuiltinModule?.("node:module") ?? (await import("node:module"));
// No TurboFan: this process reads two small files per source and exits. Optimizing its few hot
// functions costs more CPU (on V8's compiler thread) than it saves below ~10,000 sources, and
// about as much as it saves at 10,000 (docs/discover.md, Performance). Sparkplug still runs.
v8.setFlagsFromString("--max-opt=1");
createRequire(import.meta.url)("../dist/ariel-discover.cjs");
