// ariel-mcp on Deno, from its TypeScript source: a client's exchange piped in (initialize,
// tools/list, a list_sources call and a refused remove_task), answered in order; the server
// runs the CLIs' sources too. `node_modules/.bin/deno test -A test/deno/mcp_test.ts`.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { cliCommand, cliEnv } from "../helpers/cli.ts";
import { initRepo, removeDir, tempDir } from "../helpers/git.ts";

interface DenoTest {
  test(t: { name: string; fn: () => unknown; sanitizeResources?: boolean; sanitizeOps?: boolean }): void;
}
const { Deno } = globalThis as unknown as { Deno: DenoTest };

function assertEqual(actual: unknown, expected: unknown, what: string): void {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

Deno.test({
  name: "ariel-mcp (deno): initialize, tools/list, list_sources, a refusal as a tool error",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () => {
    const root = tempDir("ariel-mcp-deno-");
    try {
      initRepo(join(root, "api"));
      const rpc = [
        {
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        },
        { method: "notifications/initialized" },
        { id: 2, method: "tools/list" },
        { id: 3, method: "tools/call", params: { name: "list_sources", arguments: {} } },
        { id: 4, method: "tools/call", params: { name: "remove_task", arguments: { task: "nope" } } },
      ];
      const [exe, ...pre] = cliCommand("mcp", "deno");
      const r = spawnSync(exe as string, [...pre, "-C", root], {
        input: rpc.map((m) => JSON.stringify({ jsonrpc: "2.0", ...m })).join("\n") + "\n",
        env: cliEnv(),
        encoding: "utf8",
        timeout: 120_000,
      });
      assertEqual(r.status, 0, `exit (stderr: ${r.stderr})`);
      const replies = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        // JSON-RPC answers in any order: the two tool calls run side by side.
        .sort((x, y) => x.id - y.id);
      assertEqual(
        replies.map((m) => m.id),
        [1, 2, 3, 4],
        "answered ids",
      );
      assertEqual(replies[1].result.tools.length, 12, "tools offered without --allow-land");
      const sources = replies[2].result.structuredContent.records.map((s: { name: string }) => s.name);
      assertEqual(sources, ["api"], "list_sources");
      assertEqual(replies[3].result.isError, true, "remove_task of an unknown task is a tool error");
      assertEqual(replies[3].result.structuredContent.error.code, "ERR_TASK_NOT_FOUND", "its code");
    } finally {
      removeDir(root);
    }
  },
});
