/**
 * docs/schema must match the zod schemas: the generator runs here in --check mode against the
 * committed files, so a schema change without `npm run schema` fails the suite.
 */
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { renderSchemaFiles } from "../packages/core/src/schema/json_schema.ts";
import { publishedSchemas } from "../packages/core/src/schema/mod.ts";
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
    expect(r.stderr).toBe(`gen-schema: ${Object.keys(publishedSchemas()).length} schemas up to date\n`);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
  });

  it("holds exactly one file per published schema", () => {
    const files = readdirSync(join(REPO_ROOT, "docs/schema")).sort();
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
    const r = genSchema("--check", "--out", dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "gen-schema: out of date (run: npm run schema):\n" +
        ["gone", "plan", "source"].map((n) => `  ${join(dir, `${n}.schema.json`)}\n`).join(""),
    );
  });

  it("writes files that end in a newline and parse as JSON", () => {
    for (const [name, text] of Object.entries(renderSchemaFiles())) {
      expect(text.endsWith("}\n"), name).toBe(true);
      expect(JSON.parse(text).$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    }
  });
});
