import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, vi } from "vitest";
import { removeDir, tempDir } from "./_fixture.ts";

/** What {@link useFakeGit} gives each test: fresh for every test. */
export interface FakeGit {
  /** The test's temporary directory. */
  dir: string;
  /** `ARIEL_STATE_HOME`: `<dir>/state`. */
  home: string;
  /** `ARIEL_GIT`: `<dir>/git`, answering `git version 2.40.1`. */
  fake: string;
  /** (Re)write the fake at `path` (the fake by default): it answers `git version <version>`. */
  writeFake(version: string, path?: string): void;
  /** How often a fake git was started in this test. */
  calls(): number;
}

/** An executable shell script at `path`. */
export function script(path: string, body: string): string {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * A fake git for each test of the file: `ARIEL_GIT` names a script that answers `git version`
 * and logs each start, `ARIEL_STATE_HOME` an empty directory; after each test these and the
 * `restore` variables are as they were, the mocks restored and the directory gone.
 */
export function useFakeGit(prefix: string, restore: readonly string[] = []): FakeGit {
  const keys = ["ARIEL_GIT", "ARIEL_STATE_HOME", ...restore];
  const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
  const fg: FakeGit = {
    dir: "",
    home: "",
    fake: "",
    writeFake: (version, path = fg.fake) => {
      script(path, `echo x >> "${fg.dir}/calls"\necho "git version ${version}"`);
    },
    calls: () => {
      const log = join(fg.dir, "calls");
      return existsSync(log) ? readFileSync(log, "utf8").split("\n").length - 1 : 0;
    },
  };
  beforeEach(() => {
    fg.dir = tempDir(prefix);
    fg.home = join(fg.dir, "state");
    mkdirSync(fg.home);
    fg.fake = join(fg.dir, "git");
    fg.writeFake("2.40.1");
    process.env.ARIEL_GIT = fg.fake;
    process.env.ARIEL_STATE_HOME = fg.home;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    removeDir(fg.dir);
  });
  return fg;
}
