/**
 * Write docs/schema/<name>.schema.json from the zod schemas, the error-code table of
 * docs/contract.md from ERROR_CODES, the API reference of docs/fleet.md from ariel-fleet's
 * route table, and every CLI's help pages (docs/help/); with --check, write nothing and exit 1 listing the files
 * that differ from what the code says (or are missing or stale).
 *
 *   node scripts/run-ts.mjs scripts/gen-schema.ts [--check] [--out DIR] [--contract FILE] [--fleet FILE]
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { renderSchemaFiles } from "../packages/core/src/schema/json_schema.ts";
import { errorTableIsCurrent, withErrorTable } from "./contract-table.ts";
import { apiReferenceIsCurrent, withApiReference } from "./fleet-api-table.ts";
import { renderHelpFiles } from "./help-reference.ts";
import { renderToolsJson, toolReferenceIsCurrent, withToolReference } from "./mcp-tool-table.ts";

const { values } = parseArgs({
  options: {
    check: { type: "boolean" },
    out: { type: "string" },
    contract: { type: "string" },
    fleet: { type: "string" },
  },
  strict: true,
});
const dir = values.out ?? fileURLToPath(new URL("../docs/schema", import.meta.url));
const files = renderSchemaFiles();
const existing = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".schema.json")) : [];
const stale = existing.filter((f) => !(f in files));
const contract = values.contract ?? fileURLToPath(new URL("../docs/contract.md", import.meta.url));
const contractText = readFileSync(contract, "utf8");
const contractCurrent = errorTableIsCurrent(contractText);
const fleetDoc = values.fleet ?? fileURLToPath(new URL("../docs/fleet.md", import.meta.url));
const fleetText = readFileSync(fleetDoc, "utf8");
const fleetCurrent = apiReferenceIsCurrent(fleetText);
const mcpDoc = fileURLToPath(new URL("../docs/mcp.md", import.meta.url));
const mcpText = readFileSync(mcpDoc, "utf8");
const mcpCurrent = toolReferenceIsCurrent(mcpText);
const toolsJson = join(dir, "mcp-tools.json");
const toolsCurrent = existsSync(toolsJson) && readFileSync(toolsJson, "utf8") === renderToolsJson();
const helpDir = fileURLToPath(new URL("../docs/help", import.meta.url));
const helpFiles = await renderHelpFiles();
const helpDrifted = Object.entries(helpFiles)
  .filter(
    ([name, text]) => !existsSync(join(helpDir, name)) || readFileSync(join(helpDir, name), "utf8") !== text,
  )
  .map(([name]) => join(helpDir, name));
// A page of a CLI that is no more.
const helpStale = existsSync(helpDir)
  ? readdirSync(helpDir).filter((f) => f.endsWith(".md") && !(f in helpFiles))
  : [];

if (values.check) {
  const drifted = Object.entries(files)
    .filter(([name, text]) => {
      const path = join(dir, name);
      return !existsSync(path) || readFileSync(path, "utf8") !== text;
    })
    .map(([name]) => name);
  const bad = [...drifted, ...stale].sort().map((f) => join(dir, f));
  if (!contractCurrent) bad.push(contract);
  if (!fleetCurrent) bad.push(fleetDoc);
  if (!mcpCurrent) bad.push(mcpDoc);
  if (!toolsCurrent) bad.push(toolsJson);
  bad.push(...helpDrifted, ...helpStale.map((f) => join(helpDir, f)));
  if (bad.length > 0) {
    process.stderr.write(
      `gen-schema: out of date (run: npm run schema):\n${bad.map((f) => `  ${f}\n`).join("")}`,
    );
    process.exit(1);
  }
  process.stderr.write(
    `gen-schema: ${Object.keys(files).length} schemas, the error table, the fleet API reference, the MCP tools and the help pages up to date\n`,
  );
} else {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  for (const f of stale) rmSync(join(dir, f));
  if (!contractCurrent) writeFileSync(contract, withErrorTable(contractText));
  if (!fleetCurrent) writeFileSync(fleetDoc, withApiReference(fleetText));
  if (!mcpCurrent) writeFileSync(mcpDoc, withToolReference(mcpText));
  if (!toolsCurrent) writeFileSync(toolsJson, renderToolsJson());
  mkdirSync(helpDir, { recursive: true });
  for (const [name, text] of Object.entries(helpFiles)) writeFileSync(join(helpDir, name), text);
  for (const f of helpStale) rmSync(join(helpDir, f));
  process.stderr.write(
    `gen-schema: wrote ${Object.keys(files).length} schemas to ${dir}, the error table of ${contract} and the help pages to ${helpDir}\n`,
  );
}
