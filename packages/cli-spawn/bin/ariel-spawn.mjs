#!/usr/bin/env node
// Thin launcher: the real program is the bundle that `npm run build` writes to dist/.
import "../dist/ariel-spawn.mjs";
