import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { hostname, networkInterfaces } from "node:os";
import { ArielError, quoteValue } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext } from "@ariel/core/host";
import { createFleetApp } from "../server/app.ts";
import { runControl } from "../server/control.ts";
import { allowedHosts, isLoopback, isWildcard } from "../server/guard.ts";
import { listen } from "../server/listen.ts";
import { taskControl } from "../server/tasks.ts";
import { COMMON_ARGS, untilInterrupted, workspacesOf } from "./_common.ts";

/** The default address: loopback only. */
export const DEFAULT_ADDR = "127.0.0.1:7878";

const args = {
  ...COMMON_ARGS,
  addr: {
    type: "string",
    valueHint: "HOST:PORT",
    description: `where to listen (default ${DEFAULT_ADDR}; port 0: any free one)`,
  },
  "token-file": {
    type: "string",
    valueHint: "FILE",
    description: "require Authorization: Bearer <the file's content> on every request (needed off loopback)",
  },
} as const satisfies ArgsDef;

/** `ariel-fleet serve`: the HTTP/SSE API and the dashboard. */
export const serveCommand = defineCommand({
  meta: {
    name: "serve",
    description:
      "serve the fleet's HTTP API, its event streams and the dashboard (default http://127.0.0.1:7878/)",
    usage: "[--addr HOST:PORT] [--token-file FILE] [--workspace DIR]... [--json]",
    examples: [
      ["ariel-fleet serve", "the API and the dashboard on http://127.0.0.1:7878/"],
      ["ariel-fleet serve --addr 127.0.0.1:0 --json", "any free port; its URL as a server record"],
      [
        "ariel-fleet serve --addr 0.0.0.0:7878 --token-file ~/.config/ariel/token",
        "off loopback, with a token",
      ],
    ],
  },
  args,
  run,
});

/** `HOST:PORT`, `[V6]:PORT`, `:PORT` or `PORT`. */
export function parseAddr(text: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*))(?::(\d{1,5}))?$/.exec(text);
  const bare = /^\d{1,5}$/.test(text);
  const host = bare ? "127.0.0.1" : (m?.[1] ?? m?.[2] ?? "");
  const port = Number(bare ? text : (m?.[3] ?? "7878"));
  if ((!bare && !m) || port > 65535 || (!bare && host === "" && m?.[3] === undefined)) {
    throw new ArielError("ERR_USAGE", `--addr ${quoteValue(text)} is not HOST:PORT`, {
      hint: `for example ${DEFAULT_ADDR}`,
    });
  }
  return { host: host === "" ? "127.0.0.1" : host, port };
}

/** This machine's addresses and host name: what a client of a wildcard bind may call it. */
function localNames(): string[] {
  const addrs = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  return [hostname(), ...addrs];
}

/**
 * The token file's text. Like ssh with a private key, a file that its group or others may read
 * or write is refused (ERR_TOKEN_FILE_MODE, 77): anyone who can read it can use the API, anyone
 * who can write it can lock its owner out. The mode is taken from the descriptor that is read.
 */
function readTokenFile(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    throw new ArielError(
      "ERR_NOINPUT",
      `cannot read --token-file ${quoteValue(path)}: ${(e as NodeJS.ErrnoException).code ?? "error"}`,
    );
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new ArielError(
        "ERR_TOKEN_FILE_MODE",
        `--token-file ${quoteValue(path)} is accessible by others (mode ${mode.toString(8).padStart(4, "0")})`,
        {
          hint: `make it readable by its owner only: chmod 600 ${quoteValue(path)}`,
          context: { path, mode: mode.toString(8).padStart(4, "0") },
        },
      );
    }
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

function readToken(path: string): string {
  const text = readTokenFile(path);
  const token = text.trim();
  if (token.length < 16 || /\s/.test(token)) {
    throw new ArielError(
      "ERR_INVALID_INPUT",
      `--token-file ${quoteValue(path)} must hold one token of 16 or more characters`,
      {
        hint: "for example: head -c 32 /dev/urandom | base64 > token",
      },
    );
  }
  return token;
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const { host, port } = parseAddr(ctx.args.addr ?? DEFAULT_ADDR);
  const tokenFile = ctx.args["token-file"] ?? null;
  if (!isLoopback(host) && tokenFile === null) {
    throw new ArielError("ERR_USAGE", `listening on ${quoteValue(host)} needs --token-file`, {
      hint: "only loopback (127.0.0.1) is served without a token",
    });
  }
  const token = tokenFile === null ? null : readToken(tokenFile);
  const workspaces = workspacesOf(ctx);
  let hosts: ReadonlySet<string> = new Set();
  const control = runControl(ctx.env, (message, runId) =>
    ctx.log.warn("WARN_KILL_UNFINISHED", message, { runId }),
  );
  const app = createFleetApp({
    workspaces,
    control,
    tasks: taskControl(ctx.env),
    guard: { hosts: () => hosts, token },
    onInternalError: (e) =>
      process.stderr.write(`ariel-fleet: internal error: ${(e as Error)?.stack ?? e}\n`),
  });
  const stop = untilInterrupted(ctx);
  const server = await listen(app.fetch, host, port);
  hosts = allowedHosts(host, server.port, isWildcard(host) ? localNames() : []);
  const { workspaces: known } = await workspaces();
  if (ctx.args.json)
    ctx.out.record({ v: 1, type: "server", url: server.url, host, port: server.port, pid: process.pid });
  else ctx.out.write(`${server.url}\n`);
  ctx.log.info(
    `serving ${known.length} workspace(s) at ${server.url}${token ? " (bearer token required)" : ""}`,
  );
  await new Promise<void>((resolve) => {
    if (stop.signal.aborted) resolve();
    stop.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  stop.dispose();
  await server.close();
  // Kills answered with 202 finish their grace (and SIGKILL) before the server goes; a second
  // interrupt (its handler is gone now) ends the process at once, leaving them at their first signal.
  await control.settled((n) =>
    ctx.log.info(
      `finishing ${n} kill(s) begun through the API (grace, then SIGKILL); interrupt again to leave them`,
    ),
  );
  return 0;
}
