// Start-up of every bin as npm installs it, against `node -e 0` in the same run: the packages
// are packed and installed into empty prefixes (scripts/pack-install.mjs), and each bin runs
// through the prefix's bin symlink (its `#!/usr/bin/env node` line included), in a workspace of
// three real repositories. Two installs: the CLI packages (the bin is the CommonJS bundle) and
// the meta package `ariel` (its bin require()s the CLI package's bundle). For comparison, the
// repository's own ways in: the pnpm shim node_modules/.bin/ariel-discover, the .mjs launcher,
// and the bundle run by node directly.
//
//   npm run build && node bench/installed.mjs [--runs N] [--smoke]
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { packAndInstall } from "../scripts/pack-install.mjs";
import { cliPackages, ROOT } from "../scripts/packages.mjs";
import { benchEnv, initRepo, numberOption, smoke, tempDir } from "./_env.mjs";
import { measureInterleaved, printRatios } from "./_measure.mjs";

const RUNS = numberOption("runs", smoke ? 2 : 20);

/** What each bin runs besides --version: a representative command of each CLI. */
const TYPICAL = {
  "ariel-discover": ["--json"],
  "ariel-worktree": ["list"],
  "ariel-spawn": ["--source", "alpha", "--", "true"],
  "ariel-runs": ["list"],
};

const tmp = tempDir("ariel-bench-installed-");
let registry;
try {
  const installed = await packAndInstall(tmp);
  registry = installed.registry;
  await registry.close();
  const ws = join(tmp, "ws");
  for (const name of ["alpha", "beta", "gamma"]) {
    initRepo(join(ws, name), (dir) => writeFileSync(join(dir, "README.md"), `# ${name}\n`));
  }
  mkdirSync(join(ws, ".ariel")); // a named workspace (ariel refuses to make .ariel/ by guess)
  const node = process.execPath;
  // The bins find node through /usr/bin/env: put this node first, as the baseline uses it.
  const env = benchEnv({
    PATH: `${dirname(node)}${delimiter}${process.env.PATH}`,
    NO_COLOR: "1",
    ARIEL_STATE_HOME: join(tmp, "state"),
  });
  const commands = [{ label: "node -e 0", cmd: node, args: ["-e", "0"] }];
  const discover = cliPackages().find((c) => c.bin === "ariel-discover");
  commands.push(
    {
      label: "repo: node_modules/.bin/ariel-discover --json (pnpm shim)",
      cmd: join(ROOT, "node_modules/.bin/ariel-discover"),
      args: ["--json"],
    },
    {
      label: "repo: node bin/ariel-discover.mjs --json (launcher)",
      cmd: node,
      args: [join(discover.dir, "bin/ariel-discover.mjs"), "--json"],
    },
    {
      label: "repo: node dist/ariel-discover.cjs --json (bundle)",
      cmd: node,
      args: [discover.bundle, "--json"],
    },
  );
  for (const [tag, prefix] of [
    ["npm i -g @ariel/cli-*", installed.prefixes.clis],
    ["npm i -g ariel", installed.prefixes.ariel],
  ]) {
    for (const cli of cliPackages()) {
      const bin = join(prefix, "bin", cli.bin);
      if (TYPICAL[cli.bin])
        commands.push({
          label: `${tag}: ${cli.bin} ${TYPICAL[cli.bin].join(" ")}`,
          cmd: bin,
          args: TYPICAL[cli.bin],
        });
      commands.push({ label: `${tag}: ${cli.bin} --version`, cmd: bin, args: ["--version"] });
    }
  }
  const results = measureInterleaved(commands, { runs: RUNS, cwd: ws, env });
  printRatios(`start-up as installed, 3-source workspace, ${RUNS} interleaved runs each`, results);
} finally {
  await registry?.close().catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
}
