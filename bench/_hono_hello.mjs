// Hono's hello-world on @hono/node-server, the baseline of bench/fleet.mjs: prints its URL, then serves.
import { createRequire } from "node:module";

const require = createRequire(new URL("../packages/cli-fleet/package.json", import.meta.url));
const { Hono } = require("hono");
const { serve } = require("@hono/node-server");
const app = new Hono();
app.get("/", (c) => c.text("Hello Hono!"));
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.stdout.write(`http://127.0.0.1:${info.port}/\n`);
});
process.on("SIGTERM", () => process.exit(0));
