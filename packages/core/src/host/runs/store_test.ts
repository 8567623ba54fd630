import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPaths } from "../../runs/paths.ts";
import { removeRunFiles } from "./store.ts";

describe("removeRunFiles", () => {
  it("removes a run's directory while another process still writes files into it", async () => {
    const root = mkdtempSync(join(tmpdir(), "ariel-store-"));
    const runId = "20261204T000000Z-abcdef";
    const p = runPaths(root, runId);
    mkdirSync(p.dir, { recursive: true });
    for (let i = 0; i < 2000; i++) writeFileSync(join(p.dir, `f${i}`), "x");
    writeFileSync(p.history, "{}\n");
    // A writer as a monitor settling the run would be: new files for 150 ms, then done.
    const writer = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("fs"); const end = Date.now() + 150; let i = 0;
         while (Date.now() < end) { try { fs.writeFileSync(${JSON.stringify(p.dir)} + "/w" + i++, "x"); } catch {} }`,
      ],
      { stdio: "ignore" },
    );
    const exited = new Promise((r) => writer.once("exit", r));
    await new Promise((r) => setTimeout(r, 80));
    await removeRunFiles(root, runId);
    await exited;
    // What the writer made after the last pass is no directory any more: its writes failed (ENOENT).
    expect([existsSync(p.dir), existsSync(p.history)]).toEqual([false, false]);
    rmSync(root, { recursive: true, force: true });
  });
});
