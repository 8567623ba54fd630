/**
 * docs/schema must match the zod schemas: the generator runs here in --check mode against the
 * committed files, so a schema change without `npm run schema` fails the suite.
 */
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CONTRACT_SUMMARY } from "../packages/core/src/contract_summary.ts";
import { ERROR_CODES, EXIT } from "../packages/core/src/errors.ts";
import { renderSchemaFiles } from "../packages/core/src/schema/json_schema.ts";
import { publishedSchemas } from "../packages/core/src/schema/mod.ts";
import { runRecord } from "../packages/core/src/testing/run_record.ts";
import { errorTableOf, normalizeTable, renderErrorTable } from "../scripts/contract-table.ts";
import { REPO_ROOT } from "./helpers/cli.ts";
import { removeDir, tempDir } from "./helpers/git.ts";

function genSchema(...args: string[]) {
  const r = spawnSync(process.execPath, ["scripts/run-ts.mjs", "scripts/gen-schema.ts", ...args], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) removeDir(d);
  dirs = [];
});

describe("docs/schema", () => {
  it("is up to date with the zod schemas (gen-schema --check)", () => {
    const r = genSchema("--check");
    expect(r.stderr).toBe(
      `gen-schema: ${Object.keys(publishedSchemas()).length} schemas, the error table, the fleet API reference, the MCP tools and the help pages up to date\n`,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
  });

  it("holds exactly one file per published schema (and ariel-mcp's tools/list)", () => {
    const files = readdirSync(join(REPO_ROOT, "docs/schema"))
      .filter((f) => f !== "mcp-tools.json")
      .sort();
    expect(files).toEqual(Object.keys(renderSchemaFiles()));
    expect(files).toEqual(
      Object.keys(publishedSchemas())
        .sort()
        .map((n) => `${n}.schema.json`),
    );
  });

  it("--check names a drifted, a missing and a stale file and exits 1", () => {
    const dir = tempDir();
    dirs.push(dir);
    cpSync(join(REPO_ROOT, "docs/schema"), dir, { recursive: true });
    writeFileSync(join(dir, "source.schema.json"), "{}\n");
    removeDir(join(dir, "plan.schema.json"));
    writeFileSync(join(dir, "gone.schema.json"), "{}\n");
    const contract = join(dir, "contract.md");
    const doc = readFileSync(join(REPO_ROOT, "docs/contract.md"), "utf8");
    const changed = doc.replace(/(\| `ERR_DIRTY` +\| )3( +\|)/, "$14$2");
    expect(changed).not.toBe(doc);
    writeFileSync(contract, changed);
    const r = genSchema("--check", "--out", dir, "--contract", contract);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "gen-schema: out of date (run: npm run schema):\n" +
        ["gone", "plan", "source"].map((n) => `  ${join(dir, `${n}.schema.json`)}\n`).join("") +
        `  ${contract}\n`,
    );
  });

  it("--check names docs/fleet.md when its API reference is not the route table's", () => {
    const dir = tempDir();
    dirs.push(dir);
    const fleet = join(dir, "fleet.md");
    const doc = readFileSync(join(REPO_ROOT, "docs/fleet.md"), "utf8");
    const changed = doc.replace("| GET    | `/healthz`", "| POST   | `/healthz`");
    expect(changed).not.toBe(doc);
    writeFileSync(fleet, changed);
    const r = genSchema("--check", "--fleet", fleet);
    expect([r.code, r.stderr]).toEqual([1, `gen-schema: out of date (run: npm run schema):\n  ${fleet}\n`]);
  });

  it("writes files that end in a newline and parse as JSON", () => {
    for (const [name, text] of Object.entries(renderSchemaFiles())) {
      expect(text.endsWith("}\n"), name).toBe(true);
      expect(JSON.parse(text).$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    }
  });
});

describe("docs/contract.md", () => {
  const doc = readFileSync(join(REPO_ROOT, "docs/contract.md"), "utf8");
  const rows = normalizeTable(doc);

  it("lists every error code with its exit status and hint, in the generated table", () => {
    const table = normalizeTable(errorTableOf(doc) ?? "");
    expect(table).toBe(normalizeTable(renderErrorTable()));
    for (const [code, { exit, hint }] of Object.entries(ERROR_CODES)) {
      expect(table).toContain(`|\`${code}\`|${exit}|`);
      expect(table).toContain(hint);
    }
  });

  it("has the exit table that `ariel-<cli> help contract` prints (bundled into every bin)", () => {
    const exitTable = (text: string) => {
      const lines = text.slice(text.indexOf("| exit ")).split("\n");
      const end = lines.findIndex((l) => !l.startsWith("|"));
      return lines.slice(0, end).join("\n");
    };
    expect(exitTable(doc).split("\n").length).toBeGreaterThan(15);
    expect(exitTable(CONTRACT_SUMMARY)).toBe(exitTable(doc));
  });

  it("has a row for every exit status", () => {
    for (const [name, n] of Object.entries(EXIT)) {
      if (n >= 125) expect(rows, name).toContain("|125/126/127|spawn, wait|");
      else expect(rows, name).toContain(`|${n}|${name}|`);
    }
  });
});

describe("records added for issue 19", () => {
  it("the published run schema takes a group (and a record without one); the end schema an end record", async () => {
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    const ajv = new Ajv2020({ strict: false });
    const schema = (n: string) =>
      JSON.parse(readFileSync(join(REPO_ROOT, `docs/schema/${n}.schema.json`), "utf8"));
    const run = ajv.compile(schema("run"));
    const record = runRecord({
      runId: "20261203T091500Z-k3x9a2",
      name: "agent@chalk",
      group: "20261203T091500Z-q7w1e0",
      source: "chalk",
      cwd: "/ws/chalk",
      startedAt: null,
      monitor: null,
      child: null,
    });
    expect(run(record)).toBe(true);
    const { group: _g, ...old } = record;
    expect(run(old)).toBe(true);
    expect(run({ ...record, group: "not a group" })).toBe(false);
    const end = ajv.compile(schema("end"));
    const rec = {
      v: 1,
      type: "end",
      runId: "20261203T091500Z-k3x9a2",
      name: "agent@chalk",
      state: "failed",
      status: 1,
      code: 1,
      signal: null,
      worktree: { outcome: "kept", reason: "dirty" },
      next: "ariel-worktree remove --task t1 --source chalk --snapshot",
    };
    expect(end(rec)).toBe(true);
    expect(end({ ...rec, state: "running" })).toBe(false);
  });
});

describe("docs/config.md", () => {
  it("documents every config key", async () => {
    const { configKeys } = await import("../packages/core/src/schema/config.ts");
    const doc = normalizeTable(readFileSync(join(REPO_ROOT, "docs/config.md"), "utf8"));
    for (const key of configKeys()) expect(doc, key).toContain(`|\`${key}\`|`);
  });
});
