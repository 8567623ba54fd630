/**
 * The build's rewrite of the MCP SDK's types.js (scripts/build-mcp-sdk.mjs, decision 0097): the
 * lazy CommonJS module it makes exports the same names as the SDK's own module, builds a schema
 * only when it is first read (and its dependencies with it), once, and the schemas parse as the
 * SDK's do. Run against the SDK that the repository pins, with the real zod.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs module of the build scripts, no declarations
import { lazyTypes } from "../scripts/build-mcp-sdk.mjs";
import { REPO_ROOT } from "./helpers/cli.ts";

const fromMcp = createRequire(join(REPO_ROOT, "packages/cli-mcp/package.json"));
// The ES module (what the bundle imports), not the CommonJS build require() resolves to.
const sdkTypesPath = fromMcp
  .resolve("@modelcontextprotocol/sdk/types.js")
  .replace("/dist/cjs/", "/dist/esm/");
const fromSdk = createRequire(sdkTypesPath);

type Exports = Record<string, unknown>;
type Schema = { safeParse(v: unknown): { success: boolean } };

/** Evaluate the rewritten module with the real zod, counting the zod builders it calls. */
async function evaluate(): Promise<{ exports: Exports; built: () => number }> {
  const { code, zodNames } = lazyTypes(readFileSync(sdkTypesPath, "utf8"), "zod-for-types") as {
    code: string;
    zodNames: string[];
  };
  const zod = (await import(fromSdk.resolve("zod/v4"))) as Record<string, unknown>;
  let calls = 0;
  const count =
    (f: (...a: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      calls += 1;
      return f(...args);
    };
  // The builders counted; a namespace (z.iso) as it is.
  const counted = Object.fromEntries(
    zodNames.map((n) => {
      const v = zod[n];
      return [n, typeof v === "function" ? count(v as (...a: unknown[]) => unknown) : v];
    }),
  );
  const exports: Exports = {};
  const req = (id: string) => {
    if (id !== "zod-for-types") throw new Error(`unexpected require ${id}`);
    return { default: counted };
  };
  new Function("exports", "require", code)(exports, req);
  return { exports, built: () => calls };
}

describe("the build's lazy SDK types.js", () => {
  it("exports exactly the SDK's names, builds nothing at load and a schema once, when read", async () => {
    const sdk = (await import(sdkTypesPath)) as Exports;
    const { exports, built } = await evaluate();
    expect(Object.keys(exports).sort()).toEqual(Object.keys(sdk).sort());
    expect(built()).toBe(0);
    const call = exports.CallToolRequestSchema;
    const afterOne = built();
    expect(afterOne).toBeGreaterThan(0);
    expect(exports.CallToolRequestSchema).toBe(call);
    expect(built()).toBe(afterOne);
    // What one schema needs is a small part of the module.
    void exports.ServerResultSchema;
    expect(built()).toBeGreaterThan(afterOne);
    expect(exports.ErrorCode).toEqual(sdk.ErrorCode);
    expect(exports.LATEST_PROTOCOL_VERSION).toBe(sdk.LATEST_PROTOCOL_VERSION);
  });

  it("parses JSON-RPC messages and tool calls as the SDK's schemas do", async () => {
    const sdk = (await import(sdkTypesPath)) as Record<string, Schema>;
    const { exports } = await evaluate();
    const ours = exports as Record<string, Schema>;
    const messages = [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_sources", arguments: {} } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { arguments: {} } },
      { jsonrpc: "1.0", id: 4, method: "ping" },
      { id: 5, result: {} },
      "not a message",
    ];
    for (const schema of ["JSONRPCMessageSchema", "CallToolRequestSchema", "InitializeRequestSchema"]) {
      for (const m of messages) {
        expect(ours[schema]?.safeParse(m).success, `${schema} ${JSON.stringify(m)}`).toBe(
          sdk[schema]?.safeParse(m).success,
        );
      }
    }
    expect(ours.CallToolRequestSchema?.safeParse(messages[2]).success).toBe(true);
    expect(ours.CallToolRequestSchema?.safeParse(messages[3]).success).toBe(false);
  });
});
